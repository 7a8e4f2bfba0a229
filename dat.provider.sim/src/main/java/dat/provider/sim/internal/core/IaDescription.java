package dat.provider.sim.internal.core;

import dat.api.DatConstants;
import dat.api.EpCreatorForPsp;
import dat.api.EvdFlags;
import dat.api.IaAttributes;
import dat.api.IovOwnership;
import dat.api.MemoryType;
import dat.api.ProviderAttributes;
import dat.api.PzSupport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What dat_ia_query(3DAT) answers for a sim IA: its IA attributes and its provider attributes. */
final class IaDescription {

    private IaDescription() {
    }

    static IaAttributes iaAttributes(SimIa ia) {
        SimLimits l = ia.adapter.limits;
        return IaAttributes.builder()
                .adapterName(ia.adapter.name)
                .vendorName("DAT for Java sim")
                .hardwareVersionMajor(1)
                .hardwareVersionMinor(0)
                .firmwareVersionMajor(SimIa.PROVIDER_VERSION_MAJOR)
                .firmwareVersionMinor(SimIa.PROVIDER_VERSION_MINOR)
                .iaAddress(ia.adapter.address)
                .maxEps(l.maxEps())
                .maxDtoPerEp(l.maxDtoPerEp())
                .maxRdmaReadPerEpIn(l.maxRdmaReadPerEp())
                .maxRdmaReadPerEpOut(l.maxRdmaReadPerEp())
                .maxEvds(l.maxEvds())
                .maxEvdQlen(l.maxEvdQlen())
                .maxIovSegmentsPerDto(l.maxIov())
                .maxLmrs(l.maxLmrs())
                .maxLmrBlockSize(Long.MAX_VALUE)
                .maxLmrVirtualAddress(Long.MAX_VALUE)
                .maxPzs(l.maxPzs())
                .maxMessageSize(l.maxMessageSize())
                .maxRdmaSize(l.maxRdmaSize())
                .maxRmrs(l.maxRmrs())
                .maxRmrTargetAddress(Long.MAX_VALUE)
                .maxSrqs(l.maxSrqs())
                .maxEpPerSrq(l.maxEpPerSrq())
                .maxRecvPerSrq(l.maxRecvPerSrq())
                .maxIovSegmentsPerRdmaRead(l.maxIov())
                .maxIovSegmentsPerRdmaWrite(l.maxIov())
                .maxRdmaReadIn(l.maxRdmaReadPerEp() * l.maxEps())
                .maxRdmaReadOut(l.maxRdmaReadPerEp() * l.maxEps())
                .maxRdmaReadPerEpInGuaranteed(true)
                .maxRdmaReadPerEpOutGuaranteed(true)
                .transportAttributes(transportAttributes(ia))
                .vendorAttributes(Map.of("max_cnos", Integer.toString(l.maxCnos())))
                .build();
    }

    /** {@code transport_specific_attr}: the provider's transport, the IA's fabric, and what its transport adds. */
    private static Map<String, String> transportAttributes(SimIa ia) {
        Map<String, String> extra = ia.adapter.transport.attributes();
        if (extra.isEmpty()) {
            return Map.of("transport", "sim", "fabric", ia.adapter.transport.fabricName());
        }
        Map<String, String> all = new java.util.HashMap<>(extra);
        all.put("transport", "sim");
        all.put("fabric", ia.adapter.transport.fabricName());
        return all;
    }

    static ProviderAttributes providerAttributes(SimIa ia) {
        SimLimits l = ia.adapter.limits;
        return ProviderAttributes.builder()
                .providerName("sim")
                .providerVersionMajor(SimIa.PROVIDER_VERSION_MAJOR)
                .providerVersionMinor(SimIa.PROVIDER_VERSION_MINOR)
                .daplVersionMajor(DatConstants.VERSION_MAJOR)
                .daplVersionMinor(DatConstants.VERSION_MINOR)
                .lmrMemTypesSupported(Set.of(MemoryType.VIRTUAL, MemoryType.LMR, MemoryType.SHARED_VIRTUAL,
                        MemoryType.SO_VIRTUAL))
                // posts copy the IOV into the work request: the consumer may reuse it at once
                .iovOwnershipOnReturn(IovOwnership.CONSUMER)
                .qosSupported(l.qosSupported())
                .completionFlagsSupported(SimIa.COMPLETION_FLAGS_SUPPORTED)
                .threadSafe(true)
                .maxPrivateDataSize(l.maxPrivateData())
                .supportsMultipath(false)
                .epCreator(EpCreatorForPsp.IFASKED)
                .pzSupport(PzSupport.UNIQUE)
                .optimalBufferAlignment(64)
                .evdStreamMerging(allStreamsMerge())
                .srqSupported(true)
                .srqWatermarksSupported(1)
                .srqEpPzDifferenceSupported(true)
                .srqInfoSupported(1)
                .epRecvInfoSupported(1)
                .lmrSyncRequired(false)
                // data moves on the posting thread: a completion may be queued before the post returns
                .dtoAsyncReturnGuaranteed(false)
                .rdmaWriteForRdmaReadRequired(false)
                .providerSpecificAttributes(Map.of("progress", "posting thread + conductor",
                        "idle_strategy", ia.provider.settings.idleStrategy(),
                        // the InfiniBand extensions of OFED uDAPL 2.0, declared as OFED declares them
                        dat.api.ext.IbExtension.ATTR_FETCH_AND_ADD, "TRUE",
                        dat.api.ext.IbExtension.ATTR_CMP_AND_SWAP, "TRUE",
                        dat.api.ext.IbExtension.ATTR_IMMED_DATA, "TRUE"))
                .build();
    }

    private static long allStreamsMerge() {
        int[] flags = {EvdFlags.SOFTWARE, EvdFlags.CR, EvdFlags.DTO, EvdFlags.CONNECTION, EvdFlags.RMR_BIND, EvdFlags.ASYNC};
        List<int[]> pairs = new ArrayList<>();
        for (int a : flags) {
            for (int b : flags) {
                pairs.add(new int[] {a, b});
            }
        }
        return ProviderAttributes.streamMerging(pairs.toArray(new int[0][]));
    }

}
