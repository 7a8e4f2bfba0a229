package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dat.api.EventNumber;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.ofi.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The private data of connection requests, accepts and rejects, framed with one length byte.
 * Some libfabric providers hand the receiver a fixed-size area (rdma_cm-based ones, as verbs:
 * the whole private-data area of the CM message), others exactly what was sent (tcp); the length
 * byte gives the consumer exactly what its peer sent on both. After the consumer's bytes, a
 * connect and an accept carry the number of the Endpoint's PZ (4 bytes), which the peer puts in
 * the keys of its RDMA operations ({@link Domain#pzKeys}), and the Endpoint's owner id (4 bytes),
 * which the active side names in its confirmation of an accept ({@link OfiEp}), 0 where the
 * provider has no remote CQ data to confirm with. So a consumer passes at most
 * {@code FI_OPT_CM_DATA_SIZE - 9} bytes ({@link Limits#maxPrivateData()}).
 *
 * <p><b>Rejects.</b> A reject by the peer's consumer carries an empty framed area (a single 0);
 * a reject by the peer's provider (a full backlog, a Service Point going away) carries
 * {@link #PROVIDER_REJECT}, a length byte no framed data has; and a connection refused where
 * nobody listens carries none. The requester tells {@code DAT_CONNECTION_EVENT_PEER_REJECTED} from
 * {@code NON_PEER_REJECTED} by that.
 */
final class PrivateData {

    private PrivateData() {
    }

    private static final byte[] NONE = new byte[0];
    private static final java.lang.foreign.ValueLayout.OfInt JAVA_INT_UNALIGNED_BE =
            java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    private static final byte[] CONSUMER_REJECT = {0};
    private static final byte[] PROVIDER_REJECT = {(byte) 0xFF, 'N'};

    /** The provider's bytes after the consumer's: the PZ number and the owner id. */
    static final int TRAILER = 8;

    /** Writes the framed data, the PZ's number and the Endpoint's owner id into a new segment of {@code arena}. */
    static MemorySegment frame(Arena arena, byte[] data, int pzId, int ownerId) {
        int length = data == null ? 0 : data.length;
        MemorySegment framed = arena.allocate(length + 1L + TRAILER);
        framed.set(JAVA_BYTE, 0, (byte) length);
        if (length > 0) {
            MemorySegment.copy(data, 0, framed, JAVA_BYTE, 1, length);
        }
        framed.set(JAVA_INT_UNALIGNED_BE, length + 1L, pzId);
        framed.set(JAVA_INT_UNALIGNED_BE, length + 5L, ownerId);
        return framed;
    }

    /** The PZ number a framed connect or accept carries after the consumer's bytes; 0 when it carries none. */
    static int pzOf(byte[] received) {
        return trailer(received, 0);
    }

    /** The owner id a framed connect or accept carries; 0 when it carries none. */
    static int ownerOf(byte[] received) {
        return trailer(received, 4);
    }

    private static int trailer(byte[] received, int offset) {
        if (received.length == 0) {
            return 0;
        }
        int at = 1 + Byte.toUnsignedInt(received[0]) + offset;
        if (received.length < at + 4) {
            return 0;
        }
        return ((received[at] & 0xFF) << 24) | ((received[at + 1] & 0xFF) << 16) | ((received[at + 2] & 0xFF) << 8)
                | (received[at + 3] & 0xFF);
    }

    /** The consumer's bytes of a framed area as received; empty when it holds none (or is not framed). */
    static byte[] unframe(byte[] received) {
        if (received.length == 0) {
            return NONE;
        }
        int length = Byte.toUnsignedInt(received[0]);
        if (length == 0 || length >= received.length) {
            return NONE;
        }
        return Arrays.copyOfRange(received, 1, 1 + length);
    }

    /** Whether a reject's data says the peer's consumer rejected (not its provider, not an absent listener). */
    static boolean isConsumerReject(byte[] received) {
        return received.length >= 1 && received[0] == 0;
    }

    /**
     * Rejects a connection request by the consumer: {@code fi_reject} through the passive endpoint
     * that received it, with {@link #CONSUMER_REJECT}; a failure is ignored (the requester's
     * connect fails anyway when the request's socket closes).
     */
    static void reject(MemorySegment pep, MemorySegment handle) {
        send(pep, handle, CONSUMER_REJECT);
    }

    /**
     * Rejects a connection request on the provider's behalf (its Service Point's backlog is full or
     * it is going away), so that the requester reports {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}.
     */
    static void rejectByProvider(MemorySegment pep, MemorySegment handle) {
        send(pep, handle, PROVIDER_REJECT);
    }

    private static void send(MemorySegment pep, MemorySegment handle, byte[] data) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment param = local.allocate(data.length);
            MemorySegment.copy(data, 0, param, JAVA_BYTE, 0, data.length);
            Ops.reject(pep, handle, param, data.length);
        } catch (NativeException ignored) {
            // the requester learns of it when the request's connection closes
        }
    }

    /**
     * A request whose Service Point is gone: refused through any passive endpoint the IA still has
     * (libfabric's reject names the request by its handle), and its {@code fi_info} freed.
     */
    static void refuse(OfiIa ia, MemorySegment info) {
        if (info.equals(MemorySegment.NULL)) {
            return;
        }
        MemorySegment pep = ia.anyPassiveEndpoint();
        if (pep != null) {
            rejectByProvider(pep, info.get(ADDRESS, Structs.INFO_HANDLE));
        }
        ia.domain.freeInfo(info);
    }

    /** The bytes of {@code privateData} once framed ({@link #frame}). */
    static long framedLength(byte[] privateData) {
        return (privateData == null ? 0 : privateData.length) + 1L + TRAILER;
    }

    /** The DAT event of a failed connect, from the error entry of the event queue and its data. */
    static int connectFailure(int error, byte[] data) {
        return switch (error) {
            case Fi.ECONNREFUSED -> isConsumerReject(data) ? EventNumber.CONNECTION_EVENT_PEER_REJECTED
                    : EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED;
            case Fi.ETIMEDOUT -> EventNumber.CONNECTION_EVENT_TIMED_OUT;
            case Fi.EHOSTUNREACH, Fi.ENETUNREACH, Fi.EHOSTDOWN, Fi.ENETDOWN -> EventNumber.CONNECTION_EVENT_UNREACHABLE;
            default -> EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED;
        };
    }
}
