package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import dat.provider.verbs.internal.ffi.Verbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * rdma_cm and verbs event numbers ({@code enum rdma_cm_event_type}, {@code enum ibv_event_type},
 * checked by the layout probe's build against the headers of rdma-core 44), and the private-data
 * framing.
 *
 * <p><b>Private data.</b> On InfiniBand and RoCE the CM messages carry fixed-size private-data
 * areas (56 bytes in a request once rdma_cm's own header is in, more in replies and rejects), and
 * the receiver always gets the whole area. To hand the consumer exactly the bytes its peer sent,
 * the provider puts a one-byte length before them; so at most {@link #MAX_PRIVATE_DATA} bytes.
 */
@SuppressWarnings("restricted") // the private-data pointer of an event is given the length the event states
final class CmEvents {

    private CmEvents() {
    }

    static final int ADDR_RESOLVED = 0;
    static final int ADDR_ERROR = 1;
    static final int ROUTE_RESOLVED = 2;
    static final int ROUTE_ERROR = 3;
    static final int CONNECT_REQUEST = 4;
    static final int CONNECT_RESPONSE = 5;
    static final int CONNECT_ERROR = 6;
    static final int UNREACHABLE = 7;
    static final int REJECTED = 8;
    static final int ESTABLISHED = 9;
    static final int DISCONNECTED = 10;
    static final int DEVICE_REMOVAL = 11;
    static final int TIMEWAIT_EXIT = 15;

    /** {@code IB_CM_REJ_CONSUMER_DEFINED}: the status of a REJECTED event when the peer's consumer rejected. */
    static final int REJECT_CONSUMER = 28;

    /**
     * The status the provider gives a REJECTED event whose reject carries {@link #PROVIDER_REJECT}:
     * the peer's provider refused (its Service Point's backlog was full, or it went away), not its
     * consumer: {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}. Not an {@code ib_cm_rej_reason}.
     */
    static final int REJECT_PROVIDER = 0x1_0000;

    /**
     * The private data of a reject by the provider rather than by the consumer. rdma_cm sends every
     * reject with the consumer-defined reason, so the marker travels in the private data: a length
     * byte no framed consumer data can have (those are at most {@link #MAX_PRIVATE_DATA}), then 'N'.
     * The receiving consumer sees no private data, as with any reject.
     */
    private static final byte[] PROVIDER_REJECT = {(byte) 0xFF, 'N'};

    static final int IBV_EVENT_QP_FATAL = 1;
    static final int IBV_EVENT_QP_REQ_ERR = 2;
    static final int IBV_EVENT_QP_ACCESS_ERR = 3;
    static final int IBV_EVENT_DEVICE_FATAL = 8;
    static final int IBV_EVENT_SRQ_ERR = 14;
    static final int IBV_EVENT_SRQ_LIMIT_REACHED = 15;

    /** The most private data a consumer may pass to connect or accept (the 56-byte request area less the length byte). */
    static final int MAX_PRIVATE_DATA = 55;

    private static final byte[] NONE = new byte[0];

    static boolean isQpEvent(int type) {
        return (type >= 1 && type <= 7) || type == 16;
    }

    /** The consumer's private data of a connection event, without the provider's length byte. */
    static byte[] privateData(MemorySegment event, int type) {
        if (type != CONNECT_REQUEST && type != CONNECT_RESPONSE && type != ESTABLISHED && type != REJECTED) {
            return NONE;
        }
        MemorySegment data = event.get(ADDRESS, Structs.CM_EVENT_PRIVATE_DATA);
        int length = Byte.toUnsignedInt(event.get(JAVA_BYTE, Structs.CM_EVENT_PRIVATE_DATA_LEN));
        if (data.equals(MemorySegment.NULL) || length == 0) {
            return NONE;
        }
        MemorySegment area = data.reinterpret(length);
        int framed = Byte.toUnsignedInt(area.get(JAVA_BYTE, 0));
        if (framed == 0 || framed >= length) {
            return NONE;
        }
        return area.asSlice(1, framed).toArray(JAVA_BYTE);
    }

    /** Whether a REJECTED event's private data is the provider's {@link #PROVIDER_REJECT} marker. */
    static boolean isProviderReject(MemorySegment event) {
        MemorySegment data = event.get(ADDRESS, Structs.CM_EVENT_PRIVATE_DATA);
        int length = Byte.toUnsignedInt(event.get(JAVA_BYTE, Structs.CM_EVENT_PRIVATE_DATA_LEN));
        if (data.equals(MemorySegment.NULL) || length < PROVIDER_REJECT.length) {
            return false;
        }
        MemorySegment area = data.reinterpret(PROVIDER_REJECT.length);
        return area.get(JAVA_BYTE, 0) == PROVIDER_REJECT[0] && area.get(JAVA_BYTE, 1) == PROVIDER_REJECT[1];
    }

    /**
     * Rejects a request on behalf of the provider (no consumer saw or refused it), so that the
     * requester reports {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}; a failure is ignored (the
     * requester then times out).
     */
    static void rejectByProvider(Verbs verbs, MemorySegment id) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment data = local.allocate(PROVIDER_REJECT.length);
            MemorySegment.copy(PROVIDER_REJECT, 0, data, JAVA_BYTE, 0, PROVIDER_REJECT.length);
            verbs.reject(id, data, PROVIDER_REJECT.length);
        } catch (NativeException ignored) {
            // the requester times out instead
        }
    }

    /**
     * Writes the framed private data (length byte, then the bytes) into {@code buffer}.
     *
     * @return the number of bytes to hand to rdma_cm
     */
    static int frame(byte[] privateData, MemorySegment buffer) {
        int length = privateData == null ? 0 : privateData.length;
        buffer.set(JAVA_BYTE, 0, (byte) length);
        if (length > 0) {
            MemorySegment.copy(privateData, 0, buffer, JAVA_BYTE, 1, length);
        }
        return length + 1;
    }
}
