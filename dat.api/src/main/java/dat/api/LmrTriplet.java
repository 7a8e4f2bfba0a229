package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One segment of a local I/O vector, {@code DAT_LMR_TRIPLET}: an LMR context, a virtual address
 * inside that LMR, and a length. Mutable and reusable, so that posting allocates nothing: build the
 * IOV array once and change the triplets between posts.
 *
 * <p>A segment length of 0 makes the context and address irrelevant, as in C.
 *
 * <p>See dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT), dat_ep_post_rdma_read(3DAT),
 * dat_ep_post_rdma_write(3DAT), dat_srq_post_recv(3DAT), dat_rmr_bind(3DAT).
 */
@ProviderType
public final class LmrTriplet {

    private int lmrContext;
    private long virtualAddress;
    private long segmentLength;

    /** Creates an empty segment (context 0, address 0, length 0). */
    public LmrTriplet() {
    }

    /**
     * Creates a segment.
     *
     * @param lmrContext the LMR context ({@link LocalMemoryRegion#lmrContext()})
     * @param virtualAddress the address of the first byte
     * @param segmentLength the number of bytes
     */
    public LmrTriplet(int lmrContext, long virtualAddress, long segmentLength) {
        set(lmrContext, virtualAddress, segmentLength);
    }

    /**
     * A segment of an LMR, by offset from its registered address.
     *
     * @param lmr the LMR
     * @param offset the offset of the first byte from {@link LocalMemoryRegion#registeredAddress()}
     * @param length the number of bytes
     * @return a new segment
     */
    public static LmrTriplet of(LocalMemoryRegion lmr, long offset, long length) {
        return new LmrTriplet().set(lmr, offset, length);
    }

    /**
     * Sets all three fields.
     *
     * @param lmrContext the LMR context
     * @param virtualAddress the address of the first byte
     * @param segmentLength the number of bytes
     * @return this segment
     */
    public LmrTriplet set(int lmrContext, long virtualAddress, long segmentLength) {
        this.lmrContext = lmrContext;
        this.virtualAddress = virtualAddress;
        this.segmentLength = segmentLength;
        return this;
    }

    /**
     * Points this segment into an LMR, by offset from its registered address. Allocates nothing.
     *
     * @param lmr the LMR
     * @param offset the offset of the first byte from {@link LocalMemoryRegion#registeredAddress()}
     * @param length the number of bytes
     * @return this segment
     */
    public LmrTriplet set(LocalMemoryRegion lmr, long offset, long length) {
        return set(lmr.lmrContext(), lmr.registeredAddress() + offset, length);
    }

    /**
     * The LMR context ({@code lmr_context}).
     *
     * @return the context
     */
    public int lmrContext() {
        return lmrContext;
    }

    /**
     * The address of the first byte ({@code virtual_address}).
     *
     * @return the address
     */
    public long virtualAddress() {
        return virtualAddress;
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
     * Sets the LMR context.
     *
     * @param lmrContext the context
     * @return this segment
     */
    public LmrTriplet lmrContext(int lmrContext) {
        this.lmrContext = lmrContext;
        return this;
    }

    /**
     * Sets the address of the first byte.
     *
     * @param virtualAddress the address
     * @return this segment
     */
    public LmrTriplet virtualAddress(long virtualAddress) {
        this.virtualAddress = virtualAddress;
        return this;
    }

    /**
     * Sets the number of bytes.
     *
     * @param segmentLength the length
     * @return this segment
     */
    public LmrTriplet segmentLength(long segmentLength) {
        this.segmentLength = segmentLength;
        return this;
    }

    @Override
    public String toString() {
        return "LmrTriplet{context=0x" + Integer.toHexString(lmrContext) + ", address=0x" + Long.toHexString(virtualAddress)
                + ", length=" + segmentLength + "}";
    }
}
