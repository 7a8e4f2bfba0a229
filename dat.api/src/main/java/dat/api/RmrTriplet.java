package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A remote buffer, {@code DAT_RMR_TRIPLET}: the RMR context the peer advertised, a target address
 * inside the region it grants, and a length. Mutable and reusable, so that posting allocates
 * nothing. The peer gets the context and address from its LMR ({@link LocalMemoryRegion#rmrContext()},
 * {@link LocalMemoryRegion#registeredAddress()}) or from an RMR bind, and sends them to the
 * initiator, typically in a message or in private data.
 *
 * <p>See dat_ep_post_rdma_read(3DAT), dat_ep_post_rdma_write(3DAT), dat_rmr_bind(3DAT).
 */
@ProviderType
public final class RmrTriplet {

    private int rmrContext;
    private long targetAddress;
    private long segmentLength;

    /** Creates an empty buffer (context 0, address 0, length 0). */
    public RmrTriplet() {
    }

    /**
     * Creates a remote buffer.
     *
     * @param rmrContext the LMR context ({@link LocalMemoryRegion#rmrContext()})
     * @param targetAddress the address of the first byte
     * @param segmentLength the number of bytes
     */
    public RmrTriplet(int rmrContext, long targetAddress, long segmentLength) {
        set(rmrContext, targetAddress, segmentLength);
    }

    /**
     * A remote buffer in an LMR that grants remote access through its own RMR context, by offset
     * from its registered address (useful when both ends are in one process).
     *
     * @param lmr the LMR
     * @param offset the offset of the first byte from {@link LocalMemoryRegion#registeredAddress()}
     * @param length the number of bytes
     * @return a new remote buffer
     */
    public static RmrTriplet of(LocalMemoryRegion lmr, long offset, long length) {
        return new RmrTriplet().set(lmr, offset, length);
    }

    /**
     * Sets all three fields.
     *
     * @param rmrContext the LMR context
     * @param targetAddress the address of the first byte
     * @param segmentLength the number of bytes
     * @return this buffer
     */
    public RmrTriplet set(int rmrContext, long targetAddress, long segmentLength) {
        this.rmrContext = rmrContext;
        this.targetAddress = targetAddress;
        this.segmentLength = segmentLength;
        return this;
    }

    /**
     * Points this buffer into an LMR's remote access, by offset from its registered address.
     * Allocates nothing.
     *
     * @param lmr the LMR
     * @param offset the offset of the first byte from {@link LocalMemoryRegion#registeredAddress()}
     * @param length the number of bytes
     * @return this buffer
     */
    public RmrTriplet set(LocalMemoryRegion lmr, long offset, long length) {
        return set(lmr.rmrContext(), lmr.registeredAddress() + offset, length);
    }

    /**
     * The RMR context ({@code rmr_context}).
     *
     * @return the context
     */
    public int rmrContext() {
        return rmrContext;
    }

    /**
     * The address of the first byte ({@code target_address}).
     *
     * @return the address
     */
    public long targetAddress() {
        return targetAddress;
    }

    /**
     * The number of bytes ({@code segment_length}).
     *
     * @return the length
     */
    public long segmentLength() {
        return segmentLength;
    }

    /**
     * Sets the RMR context.
     *
     * @param rmrContext the context
     * @return this buffer
     */
    public RmrTriplet rmrContext(int rmrContext) {
        this.rmrContext = rmrContext;
        return this;
    }

    /**
     * Sets the address of the first byte.
     *
     * @param targetAddress the address
     * @return this buffer
     */
    public RmrTriplet targetAddress(long targetAddress) {
        this.targetAddress = targetAddress;
        return this;
    }

    /**
     * Sets the number of bytes.
     *
     * @param segmentLength the length
     * @return this buffer
     */
    public RmrTriplet segmentLength(long segmentLength) {
        this.segmentLength = segmentLength;
        return this;
    }

    @Override
    public String toString() {
        return "RmrTriplet{context=0x" + Integer.toHexString(rmrContext) + ", address=0x" + Long.toHexString(targetAddress)
                + ", length=" + segmentLength + "}";
    }
}
