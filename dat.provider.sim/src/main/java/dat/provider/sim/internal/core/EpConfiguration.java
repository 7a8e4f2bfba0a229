package dat.provider.sim.internal.core;

import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.EpAttributes;
import dat.api.Qos;
import dat.api.ServiceType;

/**
 * The checks of an Endpoint's configuration at dat_ep_create(3DAT) and dat_ep_modify(3DAT): its
 * attributes against the IA's limits (unset ones take the defaults), and its completion flags
 * against the other completion streams of the EVDs it feeds.
 */
final class EpConfiguration {

    private EpConfiguration() {
    }

    private static final int[] DTO_MODES = {CompletionFlags.DEFAULT, CompletionFlags.UNSIGNALLED, CompletionFlags.SOLICITED_WAIT,
        CompletionFlags.EVD_THRESHOLD};
    private static final int OTHER_STREAMS = DTO_MODES.length;

    /**
     * dat_ep_create(3DAT), USAGE: the Request (Recv) Completion Flags of an Endpoint must match
     * those of the other DTO completion streams of the same EVD; an EVD fed by other event streams
     * (connection events, connection requests, asynchronous events) takes none whose flags make
     * events non-notifying (UNSIGNALLED, SOLICITED_WAIT); and a SOLICITED_WAIT EVD takes only
     * receive streams of that value.
     *
     * @param a the Endpoint's attributes (their completion flags)
     * @param recv its receive EVD, or {@code null}
     * @param request its request EVD, or {@code null}
     * @param connect its connection EVD, or {@code null} (a stream of another kind)
     * @param self the Endpoint whose streams change ({@link EpModification}), whose current ones do not count; {@code null} at creation
     * @param recvArg the argument that names the receive EVD, for the error
     * @param requestArg the argument that names the request EVD
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} naming the EVD whose streams clash
     */
    static void checkCompletionFlagsAgainstEvds(EpAttributes a, SimEvd recv, SimEvd request, SimEvd connect, SimEndpoint self,
            int recvArg, int requestArg) {
        checkStream(recv, a.recvCompletionFlags(), request, a.requestCompletionFlags(), connect, self, recvArg, "recvEvd");
        checkStream(request, a.requestCompletionFlags(), recv, a.recvCompletionFlags(), connect, self, requestArg, "requestEvd");
    }

    private static void checkStream(SimEvd evd, int flags, SimEvd sibling, int siblingFlags, SimEvd connect, SimEndpoint self,
            int arg, String argument) {
        if (evd == null) {
            return;
        }
        int[] streams = {0, 0, 0, 0, 0};
        int dto = evd.dtoStreams.get();
        int unsignalled = evd.unsignalledStreams.get();
        int solicited = evd.solicitedStreams.get();
        int threshold = evd.thresholdStreams.get();
        streams[0] = dto - unsignalled - solicited - threshold;
        streams[1] = unsignalled;
        streams[2] = solicited;
        streams[3] = threshold;
        streams[OTHER_STREAMS] = evd.feeders.get() - dto;
        if (self != null) {
            EpAttributes old = self.attrs;
            count(streams, self.recvEvd == evd, old.recvCompletionFlags(), -1);
            count(streams, self.requestEvd == evd, old.requestCompletionFlags(), -1);
            count(streams, self.connectEvd == evd, -1, -1);
        }
        count(streams, sibling == evd, siblingFlags, +1);
        count(streams, connect == evd && (self == null || self.connectEvd != evd), -1, +1);
        for (int m = 0; m < DTO_MODES.length; m++) {
            if (DTO_MODES[m] != flags && streams[m] > 0) {
                throw SimHandle.invalidParameter(arg, argument, "its completion streams have completion flags 0x"
                        + Integer.toHexString(DTO_MODES[m]) + ", this one 0x" + Integer.toHexString(flags)
                        + ": they must match (dat_ep_create(3DAT))");
            }
        }
        if ((flags == CompletionFlags.UNSIGNALLED || flags == CompletionFlags.SOLICITED_WAIT) && streams[OTHER_STREAMS] > 0) {
            throw SimHandle.invalidParameter(arg, argument, "an EVD fed by other event streams takes no completion stream with flags 0x"
                    + Integer.toHexString(flags) + " (dat_ep_create(3DAT))");
        }
    }

    private static void count(int[] streams, boolean applies, int flags, int delta) {
        if (!applies) {
            return;
        }
        for (int m = 0; m < DTO_MODES.length; m++) {
            if (DTO_MODES[m] == flags) {
                streams[m] += delta;
                return;
            }
        }
        streams[OTHER_STREAMS] += delta;
    }

    /** Fills unset (0) attributes with the defaults and checks the rest against the limits. */
    static EpAttributes resolveAttributes(SimLimits l, EpAttributes requested, int attrArg) {
        EpAttributes a = requested == null ? EpAttributes.providerDefaults() : requested;
        if (a.serviceType() != ServiceType.RC) {
            throw DatException.of(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "attributes", "service type " + a.serviceType());
        }
        if (!Qos.isValid(a.qos())) {
            throw SimHandle.invalidParameter(attrArg, "attributes.qos", "undefined QoS bits 0x" + Integer.toHexString(a.qos()));
        }
        if ((a.qos() & ~l.qosSupported()) != 0) {
            throw DatException.of(DatReturn.MODEL_NOT_SUPPORTED, DatReturn.NO_SUBTYPE, "attributes.qos",
                    "QoS 0x" + Integer.toHexString(a.qos()) + " not supported");
        }
        int recvFlags = a.recvCompletionFlags();
        if (recvFlags != CompletionFlags.DEFAULT && recvFlags != CompletionFlags.UNSIGNALLED
                && recvFlags != CompletionFlags.SOLICITED_WAIT && recvFlags != CompletionFlags.EVD_THRESHOLD) {
            throw SimHandle.invalidParameter(attrArg, "attributes.recvCompletionFlags", "must be DEFAULT, UNSIGNALLED, SOLICITED_WAIT or EVD_THRESHOLD");
        }
        int requestFlags = a.requestCompletionFlags();
        if (requestFlags != CompletionFlags.DEFAULT && requestFlags != CompletionFlags.UNSIGNALLED
                && requestFlags != CompletionFlags.EVD_THRESHOLD) {
            throw SimHandle.invalidParameter(attrArg, "attributes.requestCompletionFlags", "must be DEFAULT, UNSIGNALLED or EVD_THRESHOLD");
        }
        long maxMessage = size(a.maxMessageSize(), Math.min(l.maxMessageSize(), 1L << 24), l.maxMessageSize(), attrArg, "maxMessageSize");
        long maxRdma = size(a.maxRdmaSize(), l.maxRdmaSize(), l.maxRdmaSize(), attrArg, "maxRdmaSize");
        int maxRecv = (int) size(a.maxRecvDtos(), Math.min(256, l.maxDtoPerEp()), l.maxDtoPerEp(), attrArg, "maxRecvDtos");
        int maxRequest = (int) size(a.maxRequestDtos(), Math.min(256, l.maxDtoPerEp()), l.maxDtoPerEp(), attrArg, "maxRequestDtos");
        int recvIov = (int) size(a.maxRecvIov(), l.defaultIov(), l.maxIov(), attrArg, "maxRecvIov");
        int requestIov = (int) size(a.maxRequestIov(), l.defaultIov(), l.maxIov(), attrArg, "maxRequestIov");
        int readIn = (int) size(a.maxRdmaReadIn(), Math.min(8, l.maxRdmaReadPerEp()), l.maxRdmaReadPerEp(), attrArg, "maxRdmaReadIn");
        int readOut = (int) size(a.maxRdmaReadOut(), Math.min(8, l.maxRdmaReadPerEp()), l.maxRdmaReadPerEp(), attrArg, "maxRdmaReadOut");
        int readIov = (int) size(a.maxRdmaReadIov(), requestIov, l.maxIov(), attrArg, "maxRdmaReadIov");
        int writeIov = (int) size(a.maxRdmaWriteIov(), requestIov, l.maxIov(), attrArg, "maxRdmaWriteIov");
        int softHw = a.srqSoftHighWatermark();
        if (softHw < 0 && softHw != DatConstants.WATERMARK_INFINITE) {
            throw SimHandle.invalidParameter(attrArg, "attributes.srqSoftHighWatermark", "negative watermark " + softHw);
        }
        return a.toBuilder().maxMessageSize(maxMessage).maxRdmaSize(maxRdma).maxRecvDtos(maxRecv)
                .maxRequestDtos(maxRequest).maxRecvIov(recvIov).maxRequestIov(requestIov).maxRdmaReadIn(readIn)
                .maxRdmaReadOut(readOut).maxRdmaReadIov(readIov).maxRdmaWriteIov(writeIov).build();
    }

    private static long size(long requested, long dflt, long max, int attrArg, String name) {
        if (requested < 0 || requested > max) {
            throw SimHandle.invalidParameter(attrArg, "attributes." + name, "must be 0 (default) or 1.." + max + ", was " + requested);
        }
        return requested == 0 ? dflt : requested;
    }

}
