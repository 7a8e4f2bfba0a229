package dat.provider.ofi.internal;

import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.EpCreatorForPsp;
import dat.api.EvdFlags;
import dat.api.IaAttributes;
import dat.api.IovOwnership;
import dat.api.MemoryType;
import dat.api.ProviderAttributes;
import dat.api.ext.IbExtension;
import dat.api.PzSupport;
import dat.api.Qos;
import dat.provider.ofi.internal.ffi.Fi;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The IA and provider attributes of an ofi IA ({@code dat_ia_query(3DAT)}), from what libfabric's
 * {@code fi_info} states ({@link Limits}) and what the provider does. Where the provider departs
 * from a page because of what libfabric does, it says so under
 * {@link ProviderAttributes#DEVIATION_PREFIX}.
 */
final class Attributes {

    private Attributes() {
    }

    /**
     * The completion flags an IA supports: {@code BARRIER_FENCE} only where the provider has
     * {@code FI_FENCE}, {@code SOLICITED_WAIT} only where a message's CQ data can carry the mark
     * ({@link RemoteCqData#marksSolicited}).
     */
    static int completionFlags(Limits limits) {
        int flags = CompletionFlags.SUPPRESS | CompletionFlags.UNSIGNALLED;
        if ((limits.caps() & Fi.FENCE) != 0) {
            flags |= CompletionFlags.BARRIER_FENCE;
        }
        if (limits.cqData().marksSolicited()) {
            flags |= CompletionFlags.SOLICITED_WAIT;
        }
        return flags;
    }

    static IaAttributes ia(OfiIa ia) {
        Limits limits = ia.limits;
        Domain domain = ia.domain;
        int depth = limits.maxDtosPerEp();
        return IaAttributes.builder()
                .adapterName(ia.name())
                .vendorName("libfabric " + domain.providerName + " " + (domain.providerVersion >>> 16) + "."
                        + (domain.providerVersion & 0xFFFF) + " (" + domain.fabricName + ", " + domain.domainName + ")")
                .hardwareVersionMajor(domain.providerVersion >>> 16)
                .hardwareVersionMinor(domain.providerVersion & 0xFFFF)
                .firmwareVersionMajor(0)
                .iaAddress(new InetSocketAddress(domain.address.getAddress(), 0))
                .maxEps(limits.maxEps())
                .maxDtoPerEp(depth)
                .maxRdmaReadPerEpIn(depth)
                .maxRdmaReadPerEpOut(depth)
                .maxEvds(limits.maxEvds())
                .maxEvdQlen(limits.maxEvdQlen())
                .maxIovSegmentsPerDto(limits.iovLimit())
                .maxLmrs(limits.maxLmrs())
                .maxLmrBlockSize(Long.MAX_VALUE)
                .maxLmrVirtualAddress(-1L)
                .maxPzs(limits.maxPzs())
                .maxMessageSize(limits.maxMessage())
                .maxRdmaSize(limits.maxMessage())
                .maxRmrs(limits.maxRmrs())
                .maxRmrTargetAddress(-1L)
                .maxSrqs(limits.maxSrqs())
                .maxEpPerSrq(limits.maxSrqs() == 0 ? 0 : limits.maxEps())
                .maxRecvPerSrq(limits.maxSrqs() == 0 ? 0 : depth)
                .maxIovSegmentsPerRdmaRead(limits.iovLimit())
                .maxIovSegmentsPerRdmaWrite(limits.iovLimit())
                .maxRdmaReadIn(depth)
                .maxRdmaReadOut(depth)
                .maxRdmaReadPerEpInGuaranteed(true)
                .maxRdmaReadPerEpOutGuaranteed(true)
                .transportAttributes(Map.of("provider", domain.providerName, "fabric", domain.fabricName,
                        "domain", domain.domainName, "data_progress", limits.dataProgress() == Fi.PROGRESS_AUTO ? "auto" : "manual"))
                .vendorAttributes(Map.of())
                .build();
    }

    static ProviderAttributes provider(Domain domain) {
        Limits limits = domain.limits;
        boolean srq = limits.maxSrqs() > 0;
        return ProviderAttributes.builder()
                .providerName("ofi")
                .providerVersionMajor(1)
                .providerVersionMinor(0)
                .daplVersionMajor(DatConstants.VERSION_MAJOR)
                .daplVersionMinor(DatConstants.VERSION_MINOR)
                .lmrMemTypesSupported(Set.of(MemoryType.VIRTUAL, MemoryType.LMR, MemoryType.SHARED_VIRTUAL))
                .iovOwnershipOnReturn(IovOwnership.CONSUMER)
                .qosSupported(Qos.BEST_EFFORT)
                .completionFlagsSupported(completionFlags(limits))
                .threadSafe(true)
                .maxPrivateDataSize(limits.maxPrivateData())
                .supportsMultipath(false)
                .epCreator(EpCreatorForPsp.IFASKED)
                .pzSupport(PzSupport.UNIQUE)
                .optimalBufferAlignment(DatConstants.OPTIMAL_ALIGNMENT)
                .evdStreamMerging(ProviderAttributes.streamMerging(
                        new int[] {EvdFlags.CR, EvdFlags.CONNECTION},
                        new int[] {EvdFlags.SOFTWARE, EvdFlags.CR}, new int[] {EvdFlags.SOFTWARE, EvdFlags.CONNECTION},
                        new int[] {EvdFlags.SOFTWARE, EvdFlags.DTO}, new int[] {EvdFlags.SOFTWARE, EvdFlags.ASYNC},
                        new int[] {EvdFlags.CONNECTION, EvdFlags.DTO}, new int[] {EvdFlags.CR, EvdFlags.DTO},
                        new int[] {EvdFlags.ASYNC, EvdFlags.CONNECTION}, new int[] {EvdFlags.ASYNC, EvdFlags.CR}))
                .srqSupported(srq)
                .srqWatermarksSupported(srq ? 1 : 0)
                .srqEpPzDifferenceSupported(false)
                .srqInfoSupported(0)
                .epRecvInfoSupported(1)
                .lmrSyncRequired(false)
                .dtoAsyncReturnGuaranteed(true)
                .rdmaWriteForRdmaReadRequired(false)
                .providerSpecificAttributes(specific(domain))
                .build();
    }

    /** A receive's error that soft-RoCE reports as {@code IBV_WC_LOC_QP_OP_ERR}, the status the provider passes on. */
    private static String localEpStatus(String what, String pageStatus, String cause) {
        return "DAT_DTO_ERR_LOCAL_EP: a device that completes " + what + " with IBV_WC_LOC_QP_OP_ERR, not " + pageStatus
                + " (soft-RoCE, rdma_rxe of Linux 6.1, takes " + cause + " for a malformed receive WQE), and the provider reports"
                + " the device's status, which libfabric's verbs provider passes on";
    }

    /** The deviation of an IA with atomics: remote write grants them ({@link Extensions}). */
    static final String REMOTE_ATOMIC_PRIVILEGE = "remote_atomic_privilege";

    /** The provider's named attributes, and where it departs from the pages. */
    static Map<String, String> specific(Domain domain) {
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("ofi.provider", domain.providerName);
        attributes.put("ofi.domain", domain.domainName);
        attributes.put("ofi.fabric", domain.fabricName);
        attributes.put("ofi.pz_keys", Boolean.toString(domain.pzKeys));
        if (domain.limits.cqData().immediateData()) { // ImmediateDataEndpoint (Extensions)
            attributes.put(IbExtension.ATTR_IMMED_DATA, "TRUE");
        }
        if (domain.atomics) { // AtomicEndpoint (Extensions)
            attributes.put(IbExtension.ATTR_FETCH_AND_ADD, "TRUE");
            attributes.put(IbExtension.ATTR_CMP_AND_SWAP, "TRUE");
            attributes.put(ProviderAttributes.DEVIATION_PREFIX + REMOTE_ATOMIC_PRIVILEGE, "DAT_DTO_SUCCESS: libfabric grants"
                    + " remote atomics with remote write (FI_REMOTE_WRITE" + (domain.providerName.equals("verbs")
                            ? "; its verbs provider registers IBV_ACCESS_REMOTE_ATOMIC with IBV_ACCESS_REMOTE_WRITE" : "")
                    + ") and has no access flag of their own, so an atomic on"
                    + " memory with DAT_MEM_PRIV_REMOTE_WRITE_FLAG but without DAT_IB_MEM_PRIV_REMOTE_ATOMIC is not refused;"
                    + " DAT_IB_MEM_PRIV_REMOTE_ATOMIC without remote write, which would grant remote writes, is refused with"
                    + " DAT_MODEL_NOT_SUPPORTED");
        }
        attributes.put(ProviderAttributes.DEVIATION_PREFIX + "provider_ep_attributes", "the IA's default Endpoint attributes: an"
                + " Endpoint the provider creates for a request at a PSP created with DAT_PSP_PROVIDER gets them, where"
                + " dat_psp_create(3DAT) asks for attributes that match the requester's, because a libfabric connection request"
                + " carries none of them; dat_ep_modify changes them before the accept");
        int privateData = domain.limits.maxPrivateData();
        if (privateData < 64) {
            attributes.put(ProviderAttributes.DEVIATION_PREFIX + "max_private_data_size", privateData + " bytes, not the 64 of"
                    + " dat_ia_query(3DAT): libfabric's " + domain.providerName + " provider carries " + domain.limits.cmDataSize()
                    + " bytes of data in a connection request (FI_OPT_CM_DATA_SIZE; verbs: what rdma_cm carries in an"
                    + " InfiniBand/RoCE connect request, less libfabric's own header), of which this provider's framing takes "
                    + (domain.limits.cmDataSize() - privateData));
        }
        if (!domain.pzKeys) {
            attributes.put(ProviderAttributes.DEVIATION_PREFIX + "remote_pz", "DAT_DTO_SUCCESS: an RDMA operation through an"
                    + " Endpoint of another PZ than the target memory's is not refused: libfabric's " + domain.providerName
                    + " provider chooses the keys and registers all of the IA's memory in one protection domain (libfabric has none"
                    + " below its domain), so the target cannot tell the PZs apart; the PZ of every local segment is checked");
        }
        if (domain.providerName.equals("verbs")) {
            attributes.put(ProviderAttributes.DEVIATION_PREFIX + "recv_length_error",
                    localEpStatus("a receive too small for its message", "IBV_WC_LOC_LEN_ERR", "the overlong payload"));
            attributes.put(ProviderAttributes.DEVIATION_PREFIX + "recv_freed_lmr", localEpStatus(
                    "a receive whose memory region was deregistered after the post", "IBV_WC_LOC_PROT_ERR", "the unknown lkey"));
        }
        if (domain.providerName.equals("tcp")) {
            attributes.put(ProviderAttributes.DEVIATION_PREFIX + "remote_access_error", "DAT_DTO_ERR_FLUSHED: libfabric's tcp"
                    + " provider (1.17) closes the connection when its target refuses an RDMA operation (a key, range, access or"
                    + " PZ it does not grant) instead of answering with an error; the refused operation completes as flushed and"
                    + " the Endpoint is disconnected (DAT_CONNECTION_EVENT_BROKEN or DISCONNECTED)");
        }
        return attributes;
    }
}
