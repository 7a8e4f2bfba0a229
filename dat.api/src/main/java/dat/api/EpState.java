package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The state of an Endpoint, {@code DAT_EP_STATE}. Each constant carries its C value; the enum
 * order is the C order.
 *
 * <p>The main transitions (dat_ep_connect(3DAT) and the pages it cites): an Endpoint starts
 * {@link #UNCONNECTED}; {@code dat_ep_connect} moves it to {@link #ACTIVE_CONNECTION_PENDING},
 * and the peer's accept to {@link #CONNECTED}; a rejection, an unreachable peer or a timeout
 * leaves it {@link #DISCONNECTED}, and {@code dat_ep_reset} brings it back to
 * {@link #UNCONNECTED}. {@code dat_rsp_create} reserves it ({@link #RESERVED}); a Public Service
 * Point created with {@link PspFlag#PROVIDER} hands out Endpoints in
 * {@link #TENTATIVE_CONNECTION_PENDING}. The {@code UNCONFIGURED_*} states are those of an
 * Endpoint created without all of its EVDs or its PZ.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat.h>}; see dat_ep_connect(3DAT), dat_ep_get_status(3DAT),
 * dat_ep_reset(3DAT), dat_rsp_create(3DAT).
 */
@ProviderType
public enum EpState {

    /** Quiescent, not connected: {@code DAT_EP_STATE_UNCONNECTED} = 0. */
    UNCONNECTED(0),

    /** Not connected, missing a PZ or an EVD: {@code DAT_EP_STATE_UNCONFIGURED_UNCONNECTED} = 1. */
    UNCONFIGURED_UNCONNECTED(1),

    /** Reserved by a Reserved Service Point: {@code DAT_EP_STATE_RESERVED} = 2. */
    RESERVED(2),

    /** Reserved while unconfigured: {@code DAT_EP_STATE_UNCONFIGURED_RESERVED} = 3. */
    UNCONFIGURED_RESERVED(3),

    /**
     * A connection request arrived for this Endpoint and awaits accept or reject:
     * {@code DAT_EP_STATE_PASSIVE_CONNECTION_PENDING} = 4.
     */
    PASSIVE_CONNECTION_PENDING(4),

    /** Passive pending while unconfigured: {@code DAT_EP_STATE_UNCONFIGURED_PASSIVE} = 5. */
    UNCONFIGURED_PASSIVE(5),

    /**
     * {@code dat_ep_connect} was called and the peer has not answered yet:
     * {@code DAT_EP_STATE_ACTIVE_CONNECTION_PENDING} = 6.
     */
    ACTIVE_CONNECTION_PENDING(6),

    /**
     * Created by the Provider for a Public Service Point with the provider flag, awaiting the
     * Consumer's accept or reject: {@code DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING} = 7.
     */
    TENTATIVE_CONNECTION_PENDING(7),

    /** Tentative pending while unconfigured: {@code DAT_EP_STATE_UNCONFIGURED_TENTATIVE} = 8. */
    UNCONFIGURED_TENTATIVE(8),

    /** Connected; data transfers may be posted: {@code DAT_EP_STATE_CONNECTED} = 9. */
    CONNECTED(9),

    /** A disconnect is in progress: {@code DAT_EP_STATE_DISCONNECT_PENDING} = 10. */
    DISCONNECT_PENDING(10),

    /**
     * Disconnected, or broken; {@code dat_ep_reset} returns it to {@link #UNCONNECTED}:
     * {@code DAT_EP_STATE_DISCONNECTED} = 11.
     */
    DISCONNECTED(11),

    /**
     * Disconnected with completions still to be delivered:
     * {@code DAT_EP_STATE_COMPLETION_PENDING} = 12.
     */
    COMPLETION_PENDING(12);

    /**
     * The legacy name of {@link #DISCONNECTED}, kept by the 1.2 header for backward
     * compatibility: {@code DAT_EP_STATE_ERROR}.
     */
    public static final EpState ERROR = DISCONNECTED;

    /** The constants indexed by C value (the values are 0..12 in declaration order). */
    private static final EpState[] BY_VALUE = values();

    /** The C value. */
    private final int value;

    /**
     * Binds a constant to its C value.
     *
     * @param value the {@code DAT_EP_STATE} value
     */
    EpState(int value) {
        this.value = value;
    }

    /**
     * The C value of this state.
     *
     * @return the {@code DAT_EP_STATE} value
     */
    public int value() {
        return value;
    }

    /**
     * The state of a C value.
     *
     * @param value a {@code DAT_EP_STATE} value
     * @return the constant with that value
     * @throws IllegalArgumentException if DAT 1.2 defines no Endpoint state with that value
     */
    public static EpState of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("undefined DAT_EP_STATE value " + value);
        }
        return BY_VALUE[value];
    }
}
