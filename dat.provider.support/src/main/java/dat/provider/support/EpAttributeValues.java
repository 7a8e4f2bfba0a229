package dat.provider.support;

import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.DatReturn;
import dat.api.EpAttributes;
import dat.api.Qos;

/**
 * The checks of Endpoint attributes that hold whatever the device allows (dat_ep_create(3DAT),
 * dat_ep_create_with_srq(3DAT), dat_ep_modify(3DAT)): a QoS of defined bits, completion flags that
 * are one of the values each stream may be configured with, and an SRQ soft high watermark that is
 * a count or {@code DAT_WATERMARK_INFINITE}. What a provider grants beyond that (queue depths,
 * IOVs, sizes, the QoS it serves) it checks itself.
 */
public final class EpAttributeValues {

    private EpAttributeValues() {
    }

    /**
     * Checks the attributes' values.
     *
     * @param a the requested attributes
     * @param attrArg the {@code DAT_INVALID_ARGn} subtype of the call's attributes argument
     * @throws dat.api.DatException {@code DAT_INVALID_PARAMETER} with {@code attrArg}
     */
    public static void check(EpAttributes a, int attrArg) {
        if (!Qos.isValid(a.qos())) {
            throw ReturnCodes.invalidParameterException(attrArg, "attributes.qos", "undefined QoS bits 0x" + Integer.toHexString(a.qos()));
        }
        int recv = a.recvCompletionFlags();
        if (recv != CompletionFlags.DEFAULT && recv != CompletionFlags.UNSIGNALLED && recv != CompletionFlags.SOLICITED_WAIT
                && recv != CompletionFlags.EVD_THRESHOLD) {
            throw ReturnCodes.invalidParameterException(attrArg, "attributes.recvCompletionFlags",
                    "must be DEFAULT, UNSIGNALLED, SOLICITED_WAIT or EVD_THRESHOLD");
        }
        int request = a.requestCompletionFlags();
        if (request != CompletionFlags.DEFAULT && request != CompletionFlags.UNSIGNALLED && request != CompletionFlags.EVD_THRESHOLD) {
            throw ReturnCodes.invalidParameterException(attrArg, "attributes.requestCompletionFlags",
                    "must be DEFAULT, UNSIGNALLED or EVD_THRESHOLD");
        }
        int softHw = a.srqSoftHighWatermark();
        if (softHw < 0 && softHw != DatConstants.WATERMARK_INFINITE) {
            throw ReturnCodes.invalidParameterException(attrArg, "attributes.srqSoftHighWatermark", "negative watermark " + softHw);
        }
    }
}
