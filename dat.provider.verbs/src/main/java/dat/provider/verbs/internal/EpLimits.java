package dat.provider.verbs.internal;

import dat.api.CompletionFlags;
import dat.api.DatReturn;
import dat.api.EpAttributes;
import dat.api.Qos;
import dat.api.ServiceType;

/**
 * The Endpoint attributes the provider grants on a device: the consumer's, with the provider's
 * defaults where the consumer left 0, each checked against what the device allows
 * ({@code DAT_INVALID_PARAMETER} naming the attribute, or {@code DAT_MODEL_NOT_SUPPORTED} for a
 * service type or QoS verbs RC does not have).
 */
final class EpLimits {

    private EpLimits() {
    }

    /** The requested attributes with the provider's defaults for zeros, checked against the device. */
    static EpAttributes effective(VerbsIa ia, EpAttributes requested) {
        EpAttributes a = requested == null ? EpAttributes.providerDefaults() : requested;
        if (a.serviceType() != ServiceType.RC) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG6, "attributes.serviceType", "only RC");
        }
        if (a.qos() != Qos.BEST_EFFORT) {
            throw Codes.notSupported("attributes.qos", "only BEST_EFFORT");
        }
        int maxIov = Math.min(ia.maxSge, VerbsEp.MAX_IOV);
        int maxReadIov = Math.min(ia.maxSgeRd, VerbsEp.MAX_IOV);
        int wr = Math.min(ia.maxQpWr, 4096);
        int recvDtos = orDefault(a.maxRecvDtos(), 64, wr, "maxRecvDtos");
        int requestDtos = orDefault(a.maxRequestDtos(), 64, wr, "maxRequestDtos");
        int recvIov = orDefault(a.maxRecvIov(), Math.min(4, maxIov), maxIov, "maxRecvIov");
        int requestIov = orDefault(a.maxRequestIov(), Math.min(4, maxIov), maxIov, "maxRequestIov");
        int readIn = orDefault(a.maxRdmaReadIn(), Math.min(4, ia.maxQpRdAtom), ia.maxQpRdAtom, "maxRdmaReadIn");
        int readOut = orDefault(a.maxRdmaReadOut(), Math.min(4, ia.maxQpInitRdAtom), ia.maxQpInitRdAtom, "maxRdmaReadOut");
        int readIov = orDefault(a.maxRdmaReadIov(), Math.min(requestIov, maxReadIov), maxReadIov, "maxRdmaReadIov");
        int writeIov = orDefault(a.maxRdmaWriteIov(), requestIov, maxIov, "maxRdmaWriteIov");
        long messageSize = a.maxMessageSize() == 0 ? ia.maxMessageSize : a.maxMessageSize();
        long rdmaSize = a.maxRdmaSize() == 0 ? ia.maxMessageSize : a.maxRdmaSize();
        if (messageSize < 0 || messageSize > ia.maxMessageSize || rdmaSize < 0 || rdmaSize > ia.maxMessageSize) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG6, "attributes.maxMessageSize",
                    "above the port's " + ia.maxMessageSize);
        }
        if (!CompletionFlags.isValid(a.recvCompletionFlags()) || !CompletionFlags.isValid(a.requestCompletionFlags())) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG6, "attributes.completionFlags", "undefined bits");
        }
        return a.toBuilder().maxRecvDtos(recvDtos).maxRequestDtos(requestDtos).maxRecvIov(recvIov).maxRequestIov(requestIov)
                .maxRdmaReadIn(readIn).maxRdmaReadOut(readOut).maxRdmaReadIov(readIov).maxRdmaWriteIov(writeIov)
                .maxMessageSize(messageSize).maxRdmaSize(rdmaSize).build();
    }

    private static int orDefault(int value, int fallback, int max, String name) {
        if (value == 0) {
            return fallback;
        }
        if (value < 0 || value > max) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG6, "attributes." + name, value + " is not in 1.." + max);
        }
        return value;
    }
}
