package dat.tests.conformance.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.ConnectFlags;
import dat.api.ConnectionRequest;
import dat.api.CrParams;
import dat.api.DatEvent;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.Qos;
import dat.api.RmrTriplet;
import java.lang.foreign.MemorySegment;

/**
 * Two Endpoints of the IA under test and everything around them: the active side on the primary
 * instance ({@link IaUnderTest#ia()}), the passive side on a second instance
 * ({@link IaUnderTest#peer()}) or, for loopback, on the same one. Each side has its own PZ, receive,
 * request and connection EVDs, and a {@link IaUnderTest#BUFFER_SIZE} buffer registered with every
 * privilege; the passive side listens on a PSP whose connection requests go to {@link #crEvd}.
 *
 * <p>{@link Options#create()} builds the sides unconnected (so that a test can post receives
 * first); {@link #establish()} connects them the way dat_ep_connect(3DAT) and
 * dat_cr_accept(3DAT) describe and waits for both {@code ESTABLISHED} events.
 */
public final class Connection {

    /** One end of the connection. */
    public static final class Side {
        /** The IA instance of this side. */
        public final InterfaceAdapter ia;
        /** The PZ of the Endpoint and the buffer. */
        public final ProtectionZone pz;
        /** The EVD of receive completions. */
        public final EventDispatcher recvEvd;
        /** The EVD of send, RDMA and RMR-bind completions. */
        public final EventDispatcher requestEvd;
        /** The EVD of connection events. */
        public final EventDispatcher connectEvd;
        /** The Endpoint. */
        public final Endpoint ep;
        /** The registered buffer, with every privilege. */
        public final LocalMemoryRegion lmr;

        Side(IaUnderTest t, InterfaceAdapter ia, EpAttributes attributes) {
            this.ia = ia;
            this.pz = ia.createProtectionZone();
            this.recvEvd = t.evd(ia, EvdFlags.DTO);
            this.requestEvd = t.evd(ia, t.requestEvdFlags());
            this.connectEvd = t.evd(ia, EvdFlags.CONNECTION);
            this.lmr = t.lmr(ia, pz, IaUnderTest.BUFFER_SIZE, MemPrivileges.ALL);
            this.ep = ia.createEndpoint(pz, recvEvd, requestEvd, connectEvd, attributes);
        }

        /**
         * Gives a Provider-created Endpoint this side's PZ and EVDs, which it comes without
         * (dat_psp_create(3DAT)), as a consumer does before accepting on it.
         *
         * @param provided the Endpoint a Connection Request carries (at a PSP created with
         *     {@code DAT_PSP_PROVIDER})
         */
        public void adopt(Endpoint provided) {
            provided.modify(EpParamMask.PZ_HANDLE | EpParamMask.RECV_EVD_HANDLE | EpParamMask.REQUEST_EVD_HANDLE
                    | EpParamMask.CONNECT_EVD_HANDLE, EpParams.builder().pz(pz).recvEvd(recvEvd).requestEvd(requestEvd)
                    .connectEvd(connectEvd).build());
        }

        /** @return the registered buffer */
        public MemorySegment buffer() {
            return lmr.memory();
        }

        /**
         * @param offset from the start of the buffer
         * @param length bytes
         * @return a one-segment local IOV into the buffer
         */
        public LmrTriplet[] iov(long offset, long length) {
            return IaUnderTest.iov(lmr, offset, length);
        }

        /**
         * @param offset from the start of the buffer
         * @param length bytes
         * @return the buffer as the peer addresses it for RDMA, through the LMR's RMR context
         */
        public RmrTriplet remote(long offset, long length) {
            return RmrTriplet.of(lmr, offset, length);
        }
    }

    /** How to build a connection; {@link IaUnderTest#connection()} starts one. */
    public static final class Options {
        private final IaUnderTest t;
        private boolean loopback;
        private EpAttributes activeAttributes;
        private EpAttributes passiveAttributes;
        private byte[] privateData;
        private byte[] acceptData;
        private InterfaceAdapter activeIa;
        private InterfaceAdapter passiveIa;

        Options(IaUnderTest t) {
            this.t = t;
        }

        /**
         * Both sides on the primary IA instance: the active Endpoint connects to a PSP of its own
         * IA, at the IA's own address.
         *
         * @return these options
         */
        public Options loopback() {
            loopback = true;
            return this;
        }

        /**
         * Puts the sides on given IA instances instead of the primary and the peer instance.
         *
         * @param active the IA of the active side
         * @param passive the IA of the passive side
         * @return these options
         */
        public Options ias(InterfaceAdapter active, InterfaceAdapter passive) {
            activeIa = active;
            passiveIa = passive;
            return this;
        }

        /**
         * @param attributes the attributes of both Endpoints
         * @return these options
         */
        public Options attributes(EpAttributes attributes) {
            activeAttributes = attributes;
            passiveAttributes = attributes;
            return this;
        }

        /**
         * @param data private data of the connect
         * @return these options
         */
        public Options privateData(byte[] data) {
            privateData = data;
            return this;
        }

        /**
         * @param data private data of the accept
         * @return these options
         */
        public Options acceptData(byte[] data) {
            acceptData = data;
            return this;
        }

        /** @return the two sides, unconnected */
        public Connection create() {
            EpAttributes active = activeAttributes != null ? activeAttributes : t.epAttributes();
            EpAttributes passive = passiveAttributes != null ? passiveAttributes : t.epAttributes();
            InterfaceAdapter activeSide = activeIa != null ? activeIa : t.ia();
            InterfaceAdapter passiveSide = passiveIa != null ? passiveIa : loopback ? activeSide : t.peer();
            return new Connection(t, this, new Side(t, activeSide, active), new Side(t, passiveSide, passive));
        }

        /** @return the two sides, connected */
        public Connection connect() {
            return create().establish();
        }
    }

    private final IaUnderTest t;
    private final Options options;
    /** The active side: it connects. */
    public final Side active;
    /** The passive side: it accepts. */
    public final Side passive;
    /** The EVD of the passive side's connection requests. */
    public final EventDispatcher crEvd;
    /** The passive side's PSP. */
    public final PublicServicePoint psp;
    private PublicServicePoint providerPsp;
    private EventDispatcher providerCrEvd;
    private CrParams requestParams;
    private DatEvent activeEstablished;
    private DatEvent passiveEstablished;

    private Connection(IaUnderTest t, Options options, Side active, Side passive) {
        this.t = t;
        this.options = options;
        this.active = active;
        this.passive = passive;
        this.crEvd = t.evd(passive.ia, EvdFlags.CR);
        this.psp = passive.ia.createPublicServicePointAny(crEvd, PspFlag.CONSUMER);
    }

    /**
     * Connects the active Endpoint to the PSP, accepts the request on the passive Endpoint, and
     * waits for {@code DAT_CONNECTION_EVENT_ESTABLISHED} on both sides.
     *
     * @return this connection
     */
    public Connection establish() {
        return accept(request());
    }

    /**
     * Connects the active Endpoint to the PSP, accepts the request on the passive Endpoint, and
     * waits for {@code DAT_CONNECTION_EVENT_ESTABLISHED} at the active side only: the passive
     * side's is left on its EVD, for a test that acts before the passive side saw it.
     *
     * @return this connection
     */
    public Connection establishAtActiveSide() {
        ConnectionRequest cr = request();
        requestParams = cr.query();
        cr.accept(passive.ep, options.acceptData);
        activeEstablished = t.event(active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED,
                "DAT_CONNECTION_EVENT_ESTABLISHED at the active side");
        return this;
    }

    /**
     * Connects the active Endpoint to the passive side's PSP and waits for the connection request
     * there, without accepting it.
     *
     * @return the pending connection request
     */
    public ConnectionRequest request() {
        connectActive(psp.connQual());
        DatEvent arrival = t.event(crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the connection request at the passive side's PSP");
        return arrival.connectionRequest();
    }

    /**
     * A PSP of the passive side's IA created with {@code DAT_PSP_PROVIDER}, made on first use, whose
     * requests go to {@link #providerCrEvd()}. The test first requires that the provider's
     * {@code ep_creator} is not NEVER.
     *
     * @return the PSP
     */
    public PublicServicePoint providerPsp() {
        if (providerPsp == null) {
            providerCrEvd = t.evd(passive.ia, EvdFlags.CR);
            providerPsp = passive.ia.createPublicServicePointAny(providerCrEvd, PspFlag.PROVIDER);
        }
        return providerPsp;
    }

    /** @return the CR EVD of {@link #providerPsp()} */
    public EventDispatcher providerCrEvd() {
        providerPsp();
        return providerCrEvd;
    }

    /**
     * Connects the active Endpoint to {@link #providerPsp()} and waits for the request there,
     * without accepting it: it carries a Provider-created Endpoint (dat_cr_query(3DAT) local_ep).
     *
     * @return the pending connection request
     */
    public ConnectionRequest requestAtProviderPsp() {
        connectActive(providerPsp().connQual());
        return t.event(providerCrEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the request at the PSP created with DAT_PSP_PROVIDER")
                .connectionRequest();
    }

    /**
     * Connects the active Endpoint to a connection qualifier of the passive side's IA, with the
     * options' private data, best-effort QoS and the fixture's event timeout.
     *
     * @param connQual the qualifier
     */
    public void connectActive(long connQual) {
        active.ep.connect(t.address(passive.ia), connQual, IaUnderTest.EVENT_TIMEOUT_MICROS, options.privateData,
                Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
    }

    /**
     * Accepts a pending request on the passive Endpoint and waits for {@code ESTABLISHED} on both
     * sides.
     *
     * @param cr the request of {@link #request()}
     * @return this connection
     */
    public Connection accept(ConnectionRequest cr) {
        requestParams = cr.query();
        cr.accept(passive.ep, options.acceptData);
        passiveEstablished = t.event(passive.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED,
                "DAT_CONNECTION_EVENT_ESTABLISHED at the passive side");
        activeEstablished = t.event(active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED,
                "DAT_CONNECTION_EVENT_ESTABLISHED at the active side");
        return this;
    }

    /** @return the parameters of the accepted connection request, as the passive side saw them */
    public CrParams requestParams() {
        return requestParams;
    }

    /** @return the ESTABLISHED event of the active side */
    public DatEvent activeEstablished() {
        return activeEstablished;
    }

    /** @return the ESTABLISHED event of the passive side */
    public DatEvent passiveEstablished() {
        return passiveEstablished;
    }

    /**
     * Sends one message of {@code length} bytes from the other side into the receive
     * {@code receiver} posted earlier, and checks that receive took it: its completion carries
     * {@code cookie}, and the bytes arrived at the front of the receiver's buffer.
     *
     * @param receiver the side whose posted receive should take the message
     * @param length the message's size
     * @param cookie the receive's user cookie
     * @param what the receive, for the messages of a failed check
     */
    public void expectPostedReceiveTakes(Side receiver, long length, long cookie, String what) {
        Side sender = other(receiver);
        DataPattern.fill(sender.buffer().asSlice(0, length), 3);
        t.expectSuccess(sender.ep.postSend(1, sender.iov(0, length), 1, CompletionFlags.DEFAULT), "dat_ep_post_send");
        DatEvent received = t.success(receiver.recvEvd, what);
        assertThat(received.userCookie()).as(t.at("user_cookie of " + what)).isEqualTo(cookie);
        t.verify(receiver.buffer().asSlice(0, length), 3, 0, "the message in " + what);
    }

    /**
     * @param side one side
     * @return the other side
     */
    public Side other(Side side) {
        return side == active ? passive : active;
    }
}
