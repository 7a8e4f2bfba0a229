package dat.provider.ofi.internal;

import dat.api.CompletionFlags;
import dat.api.ConnectFlags;
import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.EpAttributes;
import dat.api.Qos;
import dat.api.ServiceType;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.support.ConnectArguments;
import dat.provider.support.EpAttributeValues;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/** The Endpoint attributes an ofi IA grants: the consumer's request, zeros replaced by defaults, checked against {@link Limits}. */
final class EpLimits {

    private EpLimits() {
    }

    /**
     * The requested attributes with the provider's defaults for zeros, checked against the limits.
     *
     * @param attrArg the {@code DAT_INVALID_ARGn} subtype of the call's attributes argument
     *     (dat_ep_create 6, dat_ep_create_with_srq 7, dat_ep_modify 3)
     */
    static EpAttributes effective(OfiIa ia, EpAttributes requested, int attrArg) {
        EpAttributes a = requested == null ? EpAttributes.providerDefaults() : requested;
        if (a.serviceType() != ServiceType.RC) {
            throw Codes.invalidParameterException(attrArg, "attributes.serviceType", "only RC");
        }
        EpAttributeValues.check(a, attrArg);
        if (a.qos() != Qos.BEST_EFFORT) {
            throw Codes.notSupported("attributes.qos", "only BEST_EFFORT");
        }
        Limits limits = ia.limits;
        if ((a.recvCompletionFlags() & CompletionFlags.SOLICITED_WAIT) != 0 && !limits.cqData().marksSolicited()) {
            throw Codes.notSupported("attributes.recvCompletionFlags", "DAT_COMPLETION_SOLICITED_WAIT_FLAG: libfabric's "
                    + ia.domain.providerName + " provider cannot tell a solicited message from another (completion_flags_supported)");
        }
        int maxIov = limits.iovLimit();
        int maxRecvIov = limits.recvIovLimit();
        int depth = limits.maxDtosPerEp();
        int recvDtos = orDefault(attrArg, a.maxRecvDtos(), Math.min(64, depth), depth, "maxRecvDtos");
        int requestDtos = orDefault(attrArg, a.maxRequestDtos(), Math.min(64, depth), depth, "maxRequestDtos");
        int recvIov = orDefault(attrArg, a.maxRecvIov(), maxRecvIov, maxRecvIov, "maxRecvIov");
        int requestIov = orDefault(attrArg, a.maxRequestIov(), maxIov, maxIov, "maxRequestIov");
        int readIn = orDefault(attrArg, a.maxRdmaReadIn(), Math.min(8, requestDtos), depth, "maxRdmaReadIn");
        int readOut = orDefault(attrArg, a.maxRdmaReadOut(), Math.min(8, requestDtos), depth, "maxRdmaReadOut");
        int readIov = orDefault(attrArg, a.maxRdmaReadIov(), requestIov, maxIov, "maxRdmaReadIov");
        int writeIov = orDefault(attrArg, a.maxRdmaWriteIov(), requestIov, maxIov, "maxRdmaWriteIov");
        long messageSize = a.maxMessageSize() == 0 ? limits.maxMessage() : a.maxMessageSize();
        long rdmaSize = a.maxRdmaSize() == 0 ? limits.maxMessage() : a.maxRdmaSize();
        if (messageSize < 0 || messageSize > limits.maxMessage() || rdmaSize < 0 || rdmaSize > limits.maxMessage()) {
            throw Codes.invalidParameterException(attrArg, "attributes.maxMessageSize",
                    "above the provider's " + limits.maxMessage());
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

    /** dat_ep_connect's own failure: an address libfabric cannot reach is DAT_INVALID_ADDRESS. */
    static DatException connectRefused(NativeException e) {
        return e.error() == Fi.EINVAL || e.error() == Fi.EADDRNOTAVAIL || e.error() == Fi.ENETUNREACH
                ? Codes.exception(DatReturn.INVALID_ADDRESS, DatReturn.INVALID_ADDRESS_UNREACHABLE, "remoteIaAddress", e.getMessage())
                : Codes.fromNative(e, "remoteIaAddress");
    }

    /**
     * Checks the arguments of {@code dat_ep_connect(3DAT)}, in the page's order, and the route: a
     * destination the IA cannot route to is one the provider can locally determine unreachable.
     */
    static void checkConnect(OfiIa ia, InetSocketAddress remoteIaAddress, long remoteConnQual, long timeoutMicros,
            byte[] privateData, int qos, int connectFlags) {
        ConnectArguments.checkRemoteAddress(remoteIaAddress);
        if (remoteConnQual < 1 || remoteConnQual > 0xFFFF) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "remoteConnQual", "not a port 1..65535");
        }
        if (!DatConstants.isValidTimeout(timeoutMicros) || timeoutMicros == 0) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG4, "timeoutMicros", "must be positive, was " + timeoutMicros);
        }
        if (privateData != null && privateData.length > ia.limits.maxPrivateData()) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG5, "privateData",
                    privateData.length + " bytes, at most " + ia.limits.maxPrivateData());
        }
        if (!Qos.isValid(qos)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG7, "qos", "undefined bits");
        }
        if (qos != Qos.BEST_EFFORT) {
            throw Codes.notSupported("qos", "only BEST_EFFORT");
        }
        if (!ConnectFlags.isValid(connectFlags)) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG8, "connectFlags", "undefined bits");
        }
        if (connectFlags != ConnectFlags.DEFAULT) {
            throw Codes.notSupported("connectFlags", "no multipath");
        }
        InetAddress local = ia.domain.address.getAddress();
        if (!Routes.routable(local, remoteIaAddress.getAddress())) {
            throw Codes.exception(DatReturn.INVALID_ADDRESS, DatReturn.INVALID_ADDRESS_UNREACHABLE, "remoteIaAddress",
                    "no route from " + local.getHostAddress() + " to " + remoteIaAddress.getAddress().getHostAddress());
        }
    }
}
