package dat.api;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

/**
 * Pins every field of every query/modify mask to its value in the illumos DAT 1.2 headers
 * ({@code dat.h}, {@code udat.h}; DAT12-FACTS.md sections 3.6 and 3.7), and checks that
 * {@code isValid} accepts exactly the defined bits.
 */
class ParamMasksTest {

    /** Creates the test instance; JUnit calls it. */
    ParamMasksTest() {}

    /**
     * Checks {@code isValid} for a mask whose defined bits are {@code all}.
     *
     * @param isValid the predicate under test
     * @param all the union of the defined bits, written out by the test
     */
    private static void assertValidBits(LongPredicate isValid, long all) {
        assertThat(isValid.test(0)).isTrue();
        assertThat(isValid.test(all)).isTrue();
        for (int bit = 0; bit < 64; bit++) {
            long field = 1L << bit;
            boolean defined = (all & field) != 0;
            assertThat(isValid.test(field)).as("bit 0x%X", field).isEqualTo(defined);
            assertThat(isValid.test(all | field)).as("bits 0x%X", all | field).isEqualTo(defined);
        }
    }

    /** DAT_IA_ATTR_MASK: 35 fields 0x1..0x400000000, ALL, NONE and the MTU alias. */
    @Test
    void iaAttrMask() {
        assertThat(Constants.of(IaAttrMask.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("IA_ADAPTER_NAME", 0x000000001L),
                entry("IA_VENDOR_NAME", 0x000000002L),
                entry("IA_HARDWARE_MAJOR_VERSION", 0x000000004L),
                entry("IA_HARDWARE_MINOR_VERSION", 0x000000008L),
                entry("IA_FIRMWARE_MAJOR_VERSION", 0x000000010L),
                entry("IA_FIRMWARE_MINOR_VERSION", 0x000000020L),
                entry("IA_ADDRESS_PTR", 0x000000040L),
                entry("IA_MAX_EPS", 0x000000080L),
                entry("IA_MAX_DTO_PER_EP", 0x000000100L),
                entry("IA_MAX_RDMA_READ_PER_EP_IN", 0x000000200L),
                entry("IA_MAX_RDMA_READ_PER_EP_OUT", 0x000000400L),
                entry("IA_MAX_EVDS", 0x000000800L),
                entry("IA_MAX_EVD_QLEN", 0x000001000L),
                entry("IA_MAX_IOV_SEGMENTS_PER_DTO", 0x000002000L),
                entry("IA_MAX_LMRS", 0x000004000L),
                entry("IA_MAX_LMR_BLOCK_SIZE", 0x000008000L),
                entry("IA_MAX_LMR_VIRTUAL_ADDRESS", 0x000010000L),
                entry("IA_MAX_PZS", 0x000020000L),
                entry("IA_MAX_MESSAGE_SIZE", 0x000040000L),
                entry("IA_MAX_RDMA_SIZE", 0x000080000L),
                entry("IA_MAX_RMRS", 0x000100000L),
                entry("IA_MAX_RMR_TARGET_ADDRESS", 0x000200000L),
                entry("IA_MAX_SRQS", 0x000400000L),
                entry("IA_MAX_EP_PER_SRQ", 0x000800000L),
                entry("IA_MAX_RECV_PER_SRQ", 0x001000000L),
                entry("IA_MAX_IOV_SEGMENTS_PER_RDMA_READ", 0x002000000L),
                entry("IA_MAX_IOV_SEGMENTS_PER_RDMA_WRITE", 0x004000000L),
                entry("IA_MAX_RDMA_READ_IN", 0x008000000L),
                entry("IA_MAX_RDMA_READ_OUT", 0x010000000L),
                entry("IA_MAX_RDMA_READ_PER_EP_IN_GUARANTEED", 0x020000000L),
                entry("IA_MAX_RDMA_READ_PER_EP_OUT_GUARANTEED", 0x040000000L),
                entry("IA_NUM_TRANSPORT_ATTR", 0x080000000L),
                entry("IA_TRANSPORT_ATTR", 0x100000000L),
                entry("IA_NUM_VENDOR_ATTR", 0x200000000L),
                entry("IA_VENDOR_ATTR", 0x400000000L),
                entry("IA_MAX_MTU_SIZE", 0x000040000L),
                entry("ALL", 0x7FFFFFFFFL),
                entry("NONE", 0x0L)));
        assertValidBits(IaAttrMask::isValid, 0x7FFFFFFFFL);
    }

    /** DAT_PROVIDER_ATTR_MASK: 26 fields 0x1..0x2000000, ALL, NONE. */
    @Test
    void providerAttrMask() {
        assertThat(Constants.of(ProviderAttrMask.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("PROVIDER_NAME", 0x0000001L),
                entry("PROVIDER_VERSION_MAJOR", 0x0000002L),
                entry("PROVIDER_VERSION_MINOR", 0x0000004L),
                entry("DAPL_VERSION_MAJOR", 0x0000008L),
                entry("DAPL_VERSION_MINOR", 0x0000010L),
                entry("LMR_MEM_TYPE_SUPPORTED", 0x0000020L),
                entry("IOV_OWNERSHIP", 0x0000040L),
                entry("DAT_QOS_SUPPORTED", 0x0000080L),
                entry("COMPLETION_FLAGS_SUPPORTED", 0x0000100L),
                entry("IS_THREAD_SAFE", 0x0000200L),
                entry("MAX_PRIVATE_DATA_SIZE", 0x0000400L),
                entry("SUPPORTS_MULTIPATH", 0x0000800L),
                entry("EP_CREATOR", 0x0001000L),
                entry("PZ_SUPPORT", 0x0002000L),
                entry("OPTIMAL_BUFFER_ALIGNMENT", 0x0004000L),
                entry("EVD_STREAM_MERGING_SUPPORTED", 0x0008000L),
                entry("SRQ_SUPPORTED", 0x0010000L),
                entry("SRQ_WATERMARKS_SUPPORTED", 0x0020000L),
                entry("SRQ_EP_PZ_DIFFERENCE_SUPPORTED", 0x0040000L),
                entry("SRQ_INFO_SUPPORTED", 0x0080000L),
                entry("EP_RECV_INFO_SUPPORTED", 0x0100000L),
                entry("LMR_SYNC_REQ", 0x0200000L),
                entry("DTO_ASYNC_RETURN_GUARANTEED", 0x0400000L),
                entry("RDMA_WRITE_FOR_RDMA_READ_REQ", 0x0800000L),
                entry("NUM_PROVIDER_SPECIFIC_ATTR", 0x1000000L),
                entry("PROVIDER_SPECIFIC_ATTR", 0x2000000L),
                entry("ALL", 0x3FFFFFFL),
                entry("NONE", 0x0L)));
        assertValidBits(ProviderAttrMask::isValid, 0x3FFFFFFL);
    }

    /** DAT_EP_PARAM_MASK: handles 0x1..0x400, EP_ATTR fields 0x1000..0x40000000. */
    @Test
    void epParamMask() {
        assertThat(Constants.of(EpParamMask.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("IA_HANDLE", 0x00000001L),
                entry("EP_STATE", 0x00000002L),
                entry("LOCAL_IA_ADDRESS_PTR", 0x00000004L),
                entry("LOCAL_PORT_QUAL", 0x00000008L),
                entry("REMOTE_IA_ADDRESS_PTR", 0x00000010L),
                entry("REMOTE_PORT_QUAL", 0x00000020L),
                entry("PZ_HANDLE", 0x00000040L),
                entry("RECV_EVD_HANDLE", 0x00000080L),
                entry("REQUEST_EVD_HANDLE", 0x00000100L),
                entry("CONNECT_EVD_HANDLE", 0x00000200L),
                entry("SRQ_HANDLE", 0x00000400L),
                entry("EP_ATTR_SERVICE_TYPE", 0x00001000L),
                entry("EP_ATTR_MAX_MESSAGE_SIZE", 0x00002000L),
                entry("EP_ATTR_MAX_RDMA_SIZE", 0x00004000L),
                entry("EP_ATTR_QOS", 0x00008000L),
                entry("EP_ATTR_RECV_COMPLETION_FLAGS", 0x00010000L),
                entry("EP_ATTR_REQUEST_COMPLETION_FLAGS", 0x00020000L),
                entry("EP_ATTR_MAX_RECV_DTOS", 0x00040000L),
                entry("EP_ATTR_MAX_REQUEST_DTOS", 0x00080000L),
                entry("EP_ATTR_MAX_RECV_IOV", 0x00100000L),
                entry("EP_ATTR_MAX_REQUEST_IOV", 0x00200000L),
                entry("EP_ATTR_MAX_RDMA_READ_IN", 0x00400000L),
                entry("EP_ATTR_MAX_RDMA_READ_OUT", 0x00800000L),
                entry("EP_ATTR_SRQ_SOFT_HW", 0x01000000L),
                entry("EP_ATTR_MAX_RDMA_READ_IOV", 0x02000000L),
                entry("EP_ATTR_MAX_RDMA_WRITE_IOV", 0x04000000L),
                entry("EP_ATTR_NUM_TRANSPORT_ATTR", 0x08000000L),
                entry("EP_ATTR_TRANSPORT_SPECIFIC_ATTR", 0x10000000L),
                entry("EP_ATTR_NUM_PROVIDER_ATTR", 0x20000000L),
                entry("EP_ATTR_PROVIDER_SPECIFIC_ATTR", 0x40000000L),
                entry("EP_ATTR_ALL", 0x7FFFF000L),
                entry("ALL", 0x7FFFF7FFL)));
        assertValidBits(EpParamMask::isValid, 0x7FFFF7FFL);
    }

    /** DAT_EVD_PARAM_MASK. */
    @Test
    void evdParamMask() {
        assertThat(Constants.of(EvdParamMask.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("IA_HANDLE", 0x01),
                entry("EVD_QLEN", 0x02),
                entry("EVD_STATE", 0x04),
                entry("CNO", 0x08),
                entry("EVD_FLAGS", 0x10),
                entry("ALL", 0x1F)));
        assertValidBits(mask -> mask == (int) mask && EvdParamMask.isValid((int) mask), 0x1F);
    }

    /** DAT_LMR_PARAM_MASK. */
    @Test
    void lmrParamMask() {
        assertThat(Constants.of(LmrParamMask.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("IA_HANDLE", 0x001),
                entry("MEM_TYPE", 0x002),
                entry("REGION_DESC", 0x004),
                entry("LENGTH", 0x008),
                entry("PZ_HANDLE", 0x010),
                entry("MEM_PRIV", 0x020),
                entry("LMR_CONTEXT", 0x040),
                entry("RMR_CONTEXT", 0x080),
                entry("REGISTERED_SIZE", 0x100),
                entry("REGISTERED_ADDRESS", 0x200),
                entry("ALL", 0x3FF)));
        assertValidBits(mask -> mask == (int) mask && LmrParamMask.isValid((int) mask), 0x3FF);
    }

    /** DAT_RMR_PARAM_MASK. */
    @Test
    void rmrParamMask() {
        assertThat(Constants.of(RmrParamMask.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("IA_HANDLE", 0x01),
                entry("PZ_HANDLE", 0x02),
                entry("LMR_TRIPLET", 0x04),
                entry("MEM_PRIV", 0x08),
                entry("RMR_CONTEXT", 0x10),
                entry("ALL", 0x1F)));
        assertValidBits(mask -> mask == (int) mask && RmrParamMask.isValid((int) mask), 0x1F);
    }

    /** DAT_SRQ_PARAM_MASK. */
    @Test
    void srqParamMask() {
        assertThat(Constants.of(SrqParamMask.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("IA_HANDLE", 0x001),
                entry("SRQ_STATE", 0x002),
                entry("PZ_HANDLE", 0x004),
                entry("MAX_RECV_DTO", 0x008),
                entry("MAX_RECV_IOV", 0x010),
                entry("LOW_WATERMARK", 0x020),
                entry("AVAILABLE_DTO_COUNT", 0x040),
                entry("OUTSTANDING_DTO_COUNT", 0x080),
                entry("ALL", 0x0FF)));
        assertValidBits(mask -> mask == (int) mask && SrqParamMask.isValid((int) mask), 0xFF);
    }

    /** DAT_PZ_PARAM_MASK. */
    @Test
    void pzParamMask() {
        assertThat(Constants.of(PzParamMask.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("IA_HANDLE", 0x01),
                entry("ALL", 0x01)));
        assertValidBits(mask -> mask == (int) mask && PzParamMask.isValid((int) mask), 0x01);
    }

    /** DAT_PSP_PARAM_MASK. */
    @Test
    void pspParamMask() {
        assertThat(Constants.of(PspParamMask.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("IA_HANDLE", 0x01),
                entry("CONN_QUAL", 0x02),
                entry("EVD_HANDLE", 0x04),
                entry("PSP_FLAGS", 0x08),
                entry("ALL", 0x0F)));
        assertValidBits(mask -> mask == (int) mask && PspParamMask.isValid((int) mask), 0x0F);
    }

    /** DAT_RSP_PARAM_MASK. */
    @Test
    void rspParamMask() {
        assertThat(Constants.of(RspParamMask.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("IA_HANDLE", 0x01),
                entry("CONN_QUAL", 0x02),
                entry("EVD_HANDLE", 0x04),
                entry("EP_HANDLE", 0x08),
                entry("ALL", 0x0F)));
        assertValidBits(mask -> mask == (int) mask && RspParamMask.isValid((int) mask), 0x0F);
    }

    /** DAT_CR_PARAM_MASK. */
    @Test
    void crParamMask() {
        assertThat(Constants.of(CrParamMask.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("REMOTE_IA_ADDRESS_PTR", 0x01),
                entry("REMOTE_PORT_QUAL", 0x02),
                entry("PRIVATE_DATA_SIZE", 0x04),
                entry("PRIVATE_DATA", 0x08),
                entry("LOCAL_EP_HANDLE", 0x10),
                entry("ALL", 0x1F)));
        assertValidBits(mask -> mask == (int) mask && CrParamMask.isValid((int) mask), 0x1F);
    }

    /** DAT_CNO_PARAM_MASK. */
    @Test
    void cnoParamMask() {
        assertThat(Constants.of(CnoParamMask.class))
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("IA_HANDLE", 0x1),
                entry("AGENT", 0x2),
                entry("ALL", 0x3)));
        assertValidBits(mask -> mask == (int) mask && CnoParamMask.isValid((int) mask), 0x3);
    }
}
