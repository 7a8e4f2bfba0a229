package dat.provider.verbs.internal;

import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.EpCreatorForPsp;
import dat.api.EvdFlags;
import dat.api.IaAttributes;
import dat.api.IovOwnership;
import dat.api.MemoryType;
import dat.api.ProviderAttributes;
import dat.api.PzSupport;
import dat.api.Qos;
import dat.api.ext.IbExtension;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What {@code dat_ia_query} answers for a verbs IA: the device's limits as IA attributes, and the
 * provider attributes with the named provider-specific ones (the InfiniBand extensions, how RMRs
 * are made) and the departures from the pages the provider declares under
 * {@link ProviderAttributes#DEVIATION_PREFIX}, which the conformance suite holds it to.
 */
final class VerbsAttributes {

    private VerbsAttributes() {
    }

    /** The IA attributes of dat_ia_query(3DAT): the device's limits as the IA offers them. */
    static IaAttributes ia(VerbsIa ia) {
        int sqDepth = Math.min(ia.maxQpWr, 4096);
        return IaAttributes.builder()
                .adapterName(ia.name())
                .vendorName(ia.port.deviceName() + " (vendor 0x" + Integer.toHexString(ia.vendorId) + ")")
                .hardwareVersionMajor(ia.hardwareVersion)
                .firmwareVersionMajor(firmwareMajor(ia.firmware))
                .iaAddress(new InetSocketAddress(ia.port.address(), 0))
                .maxEps(ia.maxQp)
                .maxDtoPerEp(sqDepth)
                .maxRdmaReadPerEpIn(ia.maxQpRdAtom)
                .maxRdmaReadPerEpOut(ia.maxQpInitRdAtom)
                .maxEvds(ia.maxCq)
                .maxEvdQlen(ia.maxCqe)
                .maxIovSegmentsPerDto(Math.min(ia.maxSge, VerbsEp.MAX_IOV))
                .maxLmrs(ia.maxMr)
                .maxLmrBlockSize(ia.maxMrSize)
                .maxLmrVirtualAddress(-1L)
                .maxPzs(ia.maxPd)
                .maxMessageSize(ia.maxMessageSize)
                .maxRdmaSize(ia.maxMessageSize)
                .maxRmrs(ia.windowType() > 0 ? ia.maxMw : 0)
                .maxRmrTargetAddress(ia.windowType() > 0 ? -1L : 0)
                .maxSrqs(ia.maxSrq)
                .maxEpPerSrq(ia.maxQp)
                .maxRecvPerSrq(ia.maxSrqWr)
                .maxIovSegmentsPerRdmaRead(Math.min(ia.maxSgeRd, VerbsEp.MAX_IOV))
                .maxIovSegmentsPerRdmaWrite(Math.min(ia.maxSge, VerbsEp.MAX_IOV))
                .maxRdmaReadIn(ia.maxQpRdAtom)
                .maxRdmaReadOut(ia.maxQpInitRdAtom)
                .maxRdmaReadPerEpInGuaranteed(true)
                .maxRdmaReadPerEpOutGuaranteed(true)
                .transportAttributes(Map.of("transport", ia.port.transport(), "device", ia.port.deviceName(),
                        "port", Integer.toString(ia.port.port()), "ia.firmware", ia.firmware))
                .vendorAttributes(Map.of())
                .build();
    }

    private static int firmwareMajor(String firmware) {
        try {
            return Integer.parseInt(firmware.split("\\.")[0]);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The deviation naming the private-data areas of InfiniBand/RoCE CM messages. */
    static final String PRIVATE_DATA_AREA = "private_data_area";

    /** {@code RXE_VENDOR_ID}: the vendor id soft-RoCE (the rdma_rxe driver) reports (older kernels reported 0). */
    static final int SOFT_ROCE_VENDOR_ID = 0xFFFFFF;

    /**
     * Where this provider departs from the pages, declared under
     * {@link ProviderAttributes#DEVIATION_PREFIX}, with the provider's other named attributes.
     */
    static Map<String, String> providerSpecificAttributes(DevicePort port, int vendorId, boolean windowBoundsEnforced) {
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("ia.transport", port.transport());
        String atomics = port.atomics() ? "TRUE" : "FALSE";
        attributes.put(IbExtension.ATTR_FETCH_AND_ADD, atomics);
        attributes.put(IbExtension.ATTR_CMP_AND_SWAP, atomics);
        attributes.put(IbExtension.ATTR_IMMED_DATA, "TRUE");
        attributes.put("rmr", port.windowType() == 0 ? "none: the device has no memory windows"
                : "memory windows of type " + port.windowType() + (windowBoundsEnforced ? ""
                        : ", each bound to a memory region of exactly its range (verbs.window_bounds)"));
        if (port.windowType() > 0 && !windowBoundsEnforced) {
            attributes.put("verbs.window_bounds", "the device lets an access through a memory window reach past the window"
                    + " within the memory region the window is bound to (found by a probe at the first IA open; soft-RoCE checks"
                    + " the region's range only), so each bind registers a memory region over exactly the window's range, whose"
                    + " range the device checks: an ibv_reg_mr per dat_rmr_bind");
        }
        attributes.put(ProviderAttributes.DEVIATION_PREFIX + "max_private_data_size", CmEvents.REQUEST_PRIVATE_DATA
                + " bytes, not the 64 of dat_ia_query(3DAT): rdma_cm carries 56 bytes of private data in an InfiniBand/RoCE"
                + " connect request (the CM REQ's 92 less rdma_cm's 36-byte header), as OFED uDAPL's cma provider reports");
        attributes.put(ProviderAttributes.DEVIATION_PREFIX + PRIVATE_DATA_AREA, "the receiver gets the whole private-data area"
                + " the CM message carries (56 bytes in a connect request, 196 in a reply, 144 after the version header of a"
                + " reject): the sender's bytes, then zeros, as OFED uDAPL hands it over; the upper-level protocol knows the length");
        if (vendorId == SOFT_ROCE_VENDOR_ID) {
            attributes.put(ProviderAttributes.DEVIATION_PREFIX + "recv_length_error", "DAT_DTO_ERR_LOCAL_EP: soft-RoCE (rdma_rxe)"
                    + " completes a receive too small for its message with IBV_WC_LOC_QP_OP_ERR, not IBV_WC_LOC_LEN_ERR (Linux 6.1"
                    + " takes the overlong payload for a malformed receive WQE), and the provider reports what the device reports");
            attributes.put(ProviderAttributes.DEVIATION_PREFIX + "recv_freed_lmr", "DAT_DTO_ERR_LOCAL_EP: soft-RoCE (rdma_rxe)"
                    + " completes a receive whose memory region was deregistered after the post with IBV_WC_LOC_QP_OP_ERR, not"
                    + " IBV_WC_LOC_PROT_ERR (Linux 6.1 takes the unknown lkey for a malformed receive WQE), and the provider"
                    + " reports what the device reports");
        }
        return attributes;
    }

    /** The provider attributes of dat_ia_query(3DAT). */
    static ProviderAttributes provider(DevicePort port, boolean srq, int vendorId, boolean windowBoundsEnforced) {
        return ProviderAttributes.builder()
                .providerName("verbs")
                .providerVersionMajor(1)
                .providerVersionMinor(0)
                .daplVersionMajor(DatConstants.VERSION_MAJOR)
                .daplVersionMinor(DatConstants.VERSION_MINOR)
                .lmrMemTypesSupported(Set.of(MemoryType.VIRTUAL, MemoryType.LMR, MemoryType.SHARED_VIRTUAL))
                .iovOwnershipOnReturn(IovOwnership.CONSUMER)
                .qosSupported(Qos.BEST_EFFORT)
                .completionFlagsSupported(CompletionFlags.SUPPRESS | CompletionFlags.SOLICITED_WAIT
                        | CompletionFlags.UNSIGNALLED | CompletionFlags.BARRIER_FENCE)
                .threadSafe(true)
                .maxPrivateDataSize(CmEvents.REQUEST_PRIVATE_DATA)
                .supportsMultipath(false)
                .epCreator(EpCreatorForPsp.NEVER)
                .pzSupport(PzSupport.UNIQUE)
                .optimalBufferAlignment(DatConstants.OPTIMAL_ALIGNMENT)
                .evdStreamMerging(ProviderAttributes.streamMerging(
                        new int[] {EvdFlags.DTO, EvdFlags.RMR_BIND},
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
                .providerSpecificAttributes(providerSpecificAttributes(port, vendorId, windowBoundsEnforced))
                .build();
    }
}
