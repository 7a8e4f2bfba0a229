package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The parameters of a Shared Receive Queue, {@code DAT_SRQ_PARAM}: see dat_srq_query(3DAT).
 *
 * @param ia the IA of the SRQ
 * @param state operational or error
 * @param pz the Protection Zone
 * @param maxRecvDtos the most receives the SRQ holds
 * @param maxRecvIov the most IOV entries of a receive
 * @param lowWatermark the low watermark, 0 when disarmed
 * @param availableDtoCount receives posted and not yet taken by an Endpoint, or
 *     {@link DatConstants#VALUE_UNKNOWN}
 * @param outstandingDtoCount receives taken by Endpoints and not yet completed, or
 *     {@link DatConstants#VALUE_UNKNOWN}
 */
@ProviderType
public record SrqParams(InterfaceAdapter ia, SrqState state, ProtectionZone pz, int maxRecvDtos, int maxRecvIov,
        int lowWatermark, int availableDtoCount, int outstandingDtoCount) {
}
