package dat.api.ext;

import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.LmrTriplet;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The counters of one IA, ready for a provider to keep: an {@link IaStatistics} whose recording
 * methods cost a striped add each ({@link LongAdder}: no lock, no allocation once warm, no
 * contention between Endpoints that post at once) and that a provider calls from its data path.
 *
 * <p>Typical use in a provider's Endpoint:
 * {@snippet :
 * public int postSend(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
 *     int status = doPostSend(numSegments, localIov, userCookie, completionFlags);
 *     return counters.post(Operation.SEND, IaCounters.iovBytes(numSegments, localIov), status);
 * }
 * }
 * and where a completion is delivered to an EVD, {@code counters.completed(status, length)}.
 *
 * @ThreadSafe every method may be called from any thread
 */
@ProviderType
public final class IaCounters implements IaStatistics {

    /** Post errors are kept per DAT return type index ({@code type >>> 16}) up to this one. */
    private static final int RETURN_TYPES = 0x15;
    /** The slot of {@link DatReturn#NOT_IMPLEMENTED} and the slot of any other type. */
    private static final int NOT_IMPLEMENTED_SLOT = RETURN_TYPES;
    private static final int OTHER_TYPE_SLOT = RETURN_TYPES + 1;
    /** Completion statuses 0..15 have a slot each; others share the last one. */
    private static final int STATUS_SLOTS = 16;
    private static final Operation[] OPERATIONS = Operation.values();

    private final String iaName;
    private final Instant since = Instant.now();
    private final LongAdder[] posted = adders(OPERATIONS.length);
    private final LongAdder[] postedBytes = adders(OPERATIONS.length);
    private final LongAdder[] postErrors = adders(RETURN_TYPES + 2);
    private final LongAdder completions = new LongAdder();
    private final LongAdder completedBytes = new LongAdder();
    private final LongAdder[] completionErrors = adders(STATUS_SLOTS + 1);
    private final LongAdder asyncErrors = new LongAdder();

    /**
     * Creates counters at zero.
     *
     * @param iaName the name of the IA they count for
     */
    public IaCounters(String iaName) {
        this.iaName = Objects.requireNonNull(iaName, "iaName");
    }

    private static LongAdder[] adders(int count) {
        LongAdder[] adders = new LongAdder[count];
        for (int i = 0; i < count; i++) {
            adders[i] = new LongAdder();
        }
        return adders;
    }

    /**
     * The bytes an IOV names: the sum of the lengths of its first {@code numSegments} segments.
     * Tolerates a bad IOV (the post rejects it anyway): counts what it can read.
     *
     * @param numSegments how many segments are used
     * @param iov the IOV, may be {@code null}
     * @return the byte count
     */
    public static long iovBytes(int numSegments, LmrTriplet[] iov) {
        if (iov == null || numSegments <= 0) {
            return 0;
        }
        long bytes = 0;
        int n = Math.min(numSegments, iov.length);
        for (int i = 0; i < n; i++) {
            LmrTriplet segment = iov[i];
            if (segment != null && segment.segmentLength() > 0) {
                bytes += segment.segmentLength();
            }
        }
        return bytes;
    }

    /**
     * Records the outcome of a post and returns its status unchanged: one operation and its bytes
     * when the status is {@link DatReturn#SUCCESS}, one post error under its type otherwise.
     *
     * @param operation what was posted
     * @param bytes the bytes it carries
     * @param status the post's return code
     * @return {@code status}
     */
    public int post(Operation operation, long bytes, int status) {
        if (status == DatReturn.SUCCESS) {
            int index = operation.ordinal();
            posted[index].increment();
            postedBytes[index].add(bytes);
        } else {
            postError(status);
        }
        return status;
    }

    /**
     * Records a post refused with an error code.
     *
     * @param status the post's return code
     */
    public void postError(int status) {
        int type = status & DatReturn.TYPE_MASK;
        int index = type >>> 16;
        if (type == DatReturn.NOT_IMPLEMENTED) {
            index = NOT_IMPLEMENTED_SLOT;
        } else if (index >= RETURN_TYPES) {
            index = OTHER_TYPE_SLOT;
        }
        postErrors[index].increment();
    }

    /**
     * Records a DTO or RMR-bind completion delivered to an EVD.
     *
     * @param status its {@link DtoCompletionStatus}
     * @param transferredLength its transferred length, counted when the status is success
     */
    public void completed(int status, long transferredLength) {
        completions.increment();
        if (status == DtoCompletionStatus.SUCCESS) {
            if (transferredLength > 0) {
                completedBytes.add(transferredLength);
            }
        } else {
            completionErrors[status > 0 && status < STATUS_SLOTS ? status : STATUS_SLOTS].increment();
        }
    }

    /** Records an asynchronous error posted to the IA's async EVD. */
    public void asyncError() {
        asyncErrors.increment();
    }

    @Override
    public IaStatisticsSnapshot snapshot() {
        Map<Operation, Long> postedNow = new EnumMap<>(Operation.class);
        Map<Operation, Long> bytesNow = new EnumMap<>(Operation.class);
        for (Operation operation : OPERATIONS) {
            postedNow.put(operation, posted[operation.ordinal()].sum());
            bytesNow.put(operation, postedBytes[operation.ordinal()].sum());
        }
        Map<Integer, Long> errorsNow = new HashMap<>();
        for (int i = 0; i < postErrors.length; i++) {
            long count = postErrors[i].sum();
            if (count != 0) {
                int type = i == NOT_IMPLEMENTED_SLOT ? DatReturn.NOT_IMPLEMENTED
                        : i == OTHER_TYPE_SLOT ? DatReturn.TYPE_MASK : i << 16;
                errorsNow.put(type, count);
            }
        }
        Map<Integer, Long> completionErrorsNow = new HashMap<>();
        for (int i = 1; i < completionErrors.length; i++) {
            long count = completionErrors[i].sum();
            if (count != 0) {
                completionErrorsNow.put(i == STATUS_SLOTS ? -1 : i, count);
            }
        }
        return new IaStatisticsSnapshot(iaName, since, Instant.now(), postedNow, bytesNow, errorsNow, completions.sum(),
                completedBytes.sum(), completionErrorsNow, asyncErrors.sum());
    }

    @Override
    public String toString() {
        return "IaCounters[" + iaName + "]";
    }
}
