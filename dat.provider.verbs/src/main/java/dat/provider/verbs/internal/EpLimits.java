package dat.provider.verbs.internal;

import dat.api.EpAttributes;
import dat.api.Qos;
import dat.api.ServiceType;
import dat.provider.support.EpAttributeValues;

/**
 * The Endpoint attributes the provider grants on a device: the consumer's, with the provider's
 * defaults where the consumer left 0, each checked against what the device allows
 * ({@code DAT_INVALID_PARAMETER} naming the attribute, or {@code DAT_MODEL_NOT_SUPPORTED} for a
 * service type or QoS verbs RC does not have).
 */
final class EpLimits {

    private EpLimits() {
    }

    /**
     * The requested attributes with the provider's defaults for zeros, checked against the device.
     *
     * @param attrArg the {@code DAT_INVALID_ARGn} subtype of the call's attributes argument
     *     (dat_ep_create 6, dat_ep_create_with_srq 7, dat_ep_modify 3)
     */
    static EpAttributes effective(VerbsIa ia, EpAttributes requested, int attrArg) {
        EpAttributes a = requested == null ? EpAttributes.providerDefaults() : requested;
        if (a.serviceType() != ServiceType.RC) {
            throw Codes.invalidParameterException(attrArg, "attributes.serviceType", "only RC");
        }
        EpAttributeValues.check(a, attrArg);
        if (a.qos() != Qos.BEST_EFFORT) {
            throw Codes.notSupported("attributes.qos", "only BEST_EFFORT");
        }
        int maxIov = Math.min(ia.maxSge, VerbsEp.MAX_IOV);
        int maxReadIov = Math.min(ia.maxSgeRd, VerbsEp.MAX_IOV);
        int wr = Math.min(ia.maxQpWr, 4096);
        int recvDtos = orDefault(attrArg, a.maxRecvDtos(), 64, wr, "maxRecvDtos");
        int requestDtos = orDefault(attrArg, a.maxRequestDtos(), 64, wr, "maxRequestDtos");
        int recvIov = orDefault(attrArg, a.maxRecvIov(), Math.min(4, maxIov), maxIov, "maxRecvIov");
        int requestIov = orDefault(attrArg, a.maxRequestIov(), Math.min(4, maxIov), maxIov, "maxRequestIov");
        int readIn = orDefault(attrArg, a.maxRdmaReadIn(), Math.min(4, ia.maxQpRdAtom), ia.maxQpRdAtom, "maxRdmaReadIn");
        int readOut = orDefault(attrArg, a.maxRdmaReadOut(), Math.min(4, ia.maxQpInitRdAtom), ia.maxQpInitRdAtom, "maxRdmaReadOut");
        int readIov = orDefault(attrArg, a.maxRdmaReadIov(), Math.min(requestIov, maxReadIov), maxReadIov, "maxRdmaReadIov");
        int writeIov = orDefault(attrArg, a.maxRdmaWriteIov(), requestIov, maxIov, "maxRdmaWriteIov");
        long messageSize = a.maxMessageSize() == 0 ? ia.maxMessageSize : a.maxMessageSize();
        long rdmaSize = a.maxRdmaSize() == 0 ? ia.maxMessageSize : a.maxRdmaSize();
        if (messageSize < 0 || messageSize > ia.maxMessageSize || rdmaSize < 0 || rdmaSize > ia.maxMessageSize) {
            throw Codes.invalidParameterException(attrArg, "attributes.maxMessageSize",
                    "above the port's " + ia.maxMessageSize);
        }
        return a.toBuilder().maxRecvDtos(recvDtos).maxRequestDtos(requestDtos).maxRecvIov(recvIov).maxRequestIov(requestIov)
                .maxRdmaReadIn(readIn).maxRdmaReadOut(readOut).maxRdmaReadIov(readIov).maxRdmaWriteIov(writeIov)
                .maxMessageSize(messageSize).maxRdmaSize(rdmaSize).build();
    }

    private static int orDefault(int attrArg, int value, int fallback, int max, String name) {
        if (value == 0) {
            return fallback;
        }
        if (value < 0 || value > max) {
            throw Codes.invalidParameterException(attrArg, "attributes." + name, value + " is not in 1.." + max);
        }
        return value;
    }
}
