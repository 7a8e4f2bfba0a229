package dat.provider.ofi.internal;

import dat.api.DatReturn;
import dat.api.EpState;

/** The {@code DAT_INVALID_STATE} code, with the state's subtype, of each Endpoint state. */
final class EpStates {

    private EpStates() {
    }

    /** The INVALID_STATE code of each EP state, indexed by {@link EpState#value()}. */
    static final int[] CODES = new int[EpState.values().length];

    static {
        for (EpState s : EpState.values()) {
            int subtype = switch (s) {
                case UNCONNECTED -> DatReturn.INVALID_STATE_EP_UNCONNECTED;
                case ACTIVE_CONNECTION_PENDING -> DatReturn.INVALID_STATE_EP_ACTCONNPENDING;
                case PASSIVE_CONNECTION_PENDING -> DatReturn.INVALID_STATE_EP_PASSCONNPENDING;
                case TENTATIVE_CONNECTION_PENDING -> DatReturn.INVALID_STATE_EP_TENTCONNPENDING;
                case CONNECTED -> DatReturn.INVALID_STATE_EP_CONNECTED;
                case DISCONNECTED -> DatReturn.INVALID_STATE_EP_DISCONNECTED;
                case RESERVED -> DatReturn.INVALID_STATE_EP_RESERVED;
                case COMPLETION_PENDING -> DatReturn.INVALID_STATE_EP_COMPLPENDING;
                case DISCONNECT_PENDING -> DatReturn.INVALID_STATE_EP_DISCPENDING;
                default -> DatReturn.INVALID_STATE_EP_NOTREADY;
            };
            CODES[s.value()] = DatReturn.error(DatReturn.INVALID_STATE, subtype);
        }
    }
}
