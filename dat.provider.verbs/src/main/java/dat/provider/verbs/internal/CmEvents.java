package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import dat.api.DatConstants;

import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import dat.provider.verbs.internal.ffi.Verbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * rdma_cm and verbs event numbers ({@code enum rdma_cm_event_type}, {@code enum ibv_event_type},
 * checked by the layout probe's build against the headers of rdma-core 44), and private data as
 * OFED uDAPL's cma provider ({@code libdaplofa}) puts it on the wire, so that a C uDAPL peer and
 * this provider read each other's.
 *
 * <p><b>Private data.</b> The bytes a consumer passes to connect or accept go to rdma_cm as they
 * are. On InfiniBand and RoCE the CM messages carry fixed-size private-data areas, and the
 * receiver gets the whole area: the sender's bytes, then zeros (56 bytes in a request, once
 * rdma_cm's own 36-byte header is in; 196 in a reply). The provider hands the consumer that area,
 * as OFED uDAPL does; {@link #REQUEST_PRIVATE_DATA} is the most a consumer may send.
 *
 * <p><b>Rejects.</b> A consumer's reject carries OFED's 4-byte version header first
 * ({@code htonl(DAT major << 24 | DAT minor << 16 | provider major << 8 | provider minor)}), by
 * which OFED tells a consumer's reject from an abnormal one; the receiver strips it and hands the
 * rest of the area to its consumer. rdma_cm sends every reject with the consumer-defined reason,
 * so a reject without the header (the provider's own, for a full backlog or a Service Point going
 * away; the CM's, for a requester that gave up) is {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}.
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
     * The status the provider gives a REJECTED event whose private data does not start with a
     * consumer's {@linkplain #REJECT_HEADER_SIZE version header}: the peer's provider or CM refused
     * (its Service Point's backlog was full, or it went away), not its consumer:
     * {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}. Not an {@code ib_cm_rej_reason}.
     */
    static final int REJECT_PROVIDER = 0x1_0000;

    /** The size of OFED's version header before a consumer reject's private data. */
    static final int REJECT_HEADER_SIZE = 4;

    /** The version this provider writes into that header: DAT 1.2, provider 1.0. */
    static final int REJECT_HEADER = (DatConstants.VERSION_MAJOR << 24) | (DatConstants.VERSION_MINOR << 16) | (1 << 8);

    static final int IBV_EVENT_CQ_ERR = 0;
    static final int IBV_EVENT_QP_FATAL = 1;
    static final int IBV_EVENT_QP_REQ_ERR = 2;
    static final int IBV_EVENT_QP_ACCESS_ERR = 3;
    static final int IBV_EVENT_DEVICE_FATAL = 8;
    static final int IBV_EVENT_SRQ_ERR = 14;
    static final int IBV_EVENT_SRQ_LIMIT_REACHED = 15;

    /**
     * The most private data a consumer may pass to connect or accept on InfiniBand and RoCE: the
     * CM request's 92-byte area less rdma_cm's 36-byte header in the TCP port space (replies could
     * carry 196, but one limit holds for both).
     */
    static final int REQUEST_PRIVATE_DATA = 56;

    private static final byte[] NONE = new byte[0];

    static boolean isQpEvent(int type) {
        return (type >= 1 && type <= 7) || type == 16;
    }

    /**
     * The private data a connection event hands the consumer: the whole area of a request or a
     * reply, the area after the version header of a consumer's reject, none otherwise.
     */
    static byte[] privateData(MemorySegment event, int type) {
        if (type != CONNECT_REQUEST && type != CONNECT_RESPONSE && type != REJECTED) {
            return NONE;
        }
        MemorySegment data = event.get(ADDRESS, Structs.CM_EVENT_PRIVATE_DATA);
        int length = Byte.toUnsignedInt(event.get(JAVA_BYTE, Structs.CM_EVENT_PRIVATE_DATA_LEN));
        if (data.equals(MemorySegment.NULL) || length == 0) {
            return NONE;
        }
        MemorySegment area = data.reinterpret(length);
        if (type == REJECTED) {
            return isConsumerReject(event) ? area.asSlice(REJECT_HEADER_SIZE).toArray(JAVA_BYTE) : NONE;
        }
        return area.toArray(JAVA_BYTE);
    }

    /**
     * Whether a REJECTED event is a consumer's reject: the consumer-defined reason, and private
     * data that starts with a version header (OFED's and this provider's consumer rejects always
     * carry one; a reject without private data arrives as an area of zeros).
     */
    static boolean isConsumerReject(MemorySegment event) {
        if (event.get(JAVA_INT, Structs.CM_EVENT_STATUS) != REJECT_CONSUMER) {
            return false;
        }
        MemorySegment data = event.get(ADDRESS, Structs.CM_EVENT_PRIVATE_DATA);
        int length = Byte.toUnsignedInt(event.get(JAVA_BYTE, Structs.CM_EVENT_PRIVATE_DATA_LEN));
        if (data.equals(MemorySegment.NULL) || length < REJECT_HEADER_SIZE) {
            return false;
        }
        return data.reinterpret(REJECT_HEADER_SIZE).get(JAVA_INT, 0) != 0;
    }

    /**
     * Rejects a request on behalf of the provider (no consumer saw or refused it): no private
     * data, so the requester reports {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}; a failure is
     * ignored (the requester then times out).
     */
    static void rejectByProvider(Verbs verbs, MemorySegment id) {
        try {
            verbs.reject(id, MemorySegment.NULL, 0);
        } catch (NativeException ignored) {
            // the requester times out instead
        }
    }

    /**
     * Rejects a request for the consumer ({@code dat_cr_reject}): OFED's version header, in
     * network byte order, and no consumer data (DAT 1.2's reject has none).
     *
     * @throws NativeException when rdma_cm refuses
     */
    static void rejectByConsumer(Verbs verbs, MemorySegment id) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment header = local.allocate(REJECT_HEADER_SIZE);
            header.set(BIG_ENDIAN_INT, 0, REJECT_HEADER);
            verbs.reject(id, header, REJECT_HEADER_SIZE);
        }
    }

    private static final ValueLayout.OfInt BIG_ENDIAN_INT = JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Copies the consumer's private data into {@code buffer} for rdma_cm.
     *
     * @return the number of bytes to hand to rdma_cm
     */
    static int copy(byte[] privateData, MemorySegment buffer) {
        int length = privateData == null ? 0 : privateData.length;
        if (length > 0) {
            MemorySegment.copy(privateData, 0, buffer, JAVA_BYTE, 0, length);
        }
        return length;
    }
}
