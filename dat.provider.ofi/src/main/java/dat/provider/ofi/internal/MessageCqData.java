package dat.provider.ofi.internal;

/**
 * The remote CQ data of a message where it has 8 bytes and consumes no receive
 * ({@link RemoteCqData#marksSolicited}: tcp). The message of an RDMA write with immediate data
 * carries the value in the low half and the bytes written in bits 32 to 62 (at most
 * {@code max_msg_size}, 1 GiB); a send carries CQ data only when posted
 * {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}, with all of bits 32 to 62 set (a length no write
 * has). Bit 63 of either is the mark of a message posted {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG},
 * which makes its receive a notification on a receive stream configured so (dat_evd_wait(3DAT)).
 */
final class MessageCqData {

    private static final long SOLICITED = 1L << 63;
    /** Bits 32 to 62 all set: a send's, not a write's length. */
    private static final long SEND = 0x7FFF_FFFFL << 32;

    private MessageCqData() {
    }

    /** The CQ data of a send posted {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}. */
    static long solicitedSend() {
        return SOLICITED | SEND;
    }

    /**
     * The CQ data of the message after an RDMA write of {@code written} bytes with immediate data,
     * marked when the write was posted {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}.
     */
    static long writeWithImmediateData(long written, int immediate, boolean solicited) {
        return (solicited ? SOLICITED : 0) | (written << 32) | Integer.toUnsignedLong(immediate);
    }

    /** Whether the message was posted {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}. */
    static boolean isSolicited(long data) {
        return data < 0;
    }

    /** Whether the message is a send's, not a write's with immediate data. */
    static boolean isSend(long data) {
        return (data & SEND) == SEND;
    }

    /** The bytes the write with immediate data wrote. */
    static long written(long data) {
        return (data & ~SOLICITED) >>> 32;
    }
}
