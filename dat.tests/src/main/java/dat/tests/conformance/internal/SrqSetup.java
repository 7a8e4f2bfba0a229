package dat.tests.conformance.internal;

import dat.api.DatEvent;
import dat.api.Endpoint;
import dat.api.EvdFlags;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.SharedReceiveQueue;
import dat.api.SrqAttributes;

/**
 * A connection whose passive Endpoint takes its receives from an SRQ of the passive IA (in the
 * passive side's PZ), with a buffer for the SRQ's receives.
 */
public final class SrqSetup {

    public final Connection connection;
    public final SharedReceiveQueue srq;
    public final Endpoint ep;
    public final EventDispatcher recvEvd;
    public final EventDispatcher connectEvd;
    public final LocalMemoryRegion buffer;

    /** On the suite's default connection (the passive side on the peer, where there is one). */
    public SrqSetup(IaUnderTest t, int srqSize) {
        this(t, null, srqSize);
    }

    /**
     * On {@code unconnected}, two sides made by {@link Connection.Options#create}, or the default
     * connection where {@code null}.
     */
    public SrqSetup(IaUnderTest t, Connection unconnected, int srqSize) {
        t.requireSrq();
        connection = unconnected != null ? unconnected : t.connection().create();
        var passive = connection.passive;
        srq = passive.ia.createSharedReceiveQueue(passive.pz, SrqAttributes.builder().maxRecvDtos(srqSize).maxRecvIov(1).build());
        recvEvd = t.evd(passive.ia, EvdFlags.DTO);
        connectEvd = t.evd(passive.ia, EvdFlags.CONNECTION);
        ep = passive.ia.createEndpointWithSrq(passive.pz, recvEvd, t.evd(passive.ia, EvdFlags.DTO), connectEvd, srq, t.epAttributes());
        buffer = t.lmr(passive.ia, passive.pz, 64 * 1024, MemPrivileges.ALL);
    }

    /** Connects the active side to the SRQ Endpoint. */
    public SrqSetup connect(IaUnderTest t) {
        var c = connection;
        c.connectActive(c.psp.connQual());
        var cr = t.event(c.crEvd, EventNumber.CONNECTION_REQUEST_EVENT, "the request for the SRQ Endpoint").connectionRequest();
        cr.accept(ep, null);
        t.event(connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the SRQ Endpoint");
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED at the active side");
        return this;
    }

    /** Posts a 1 KiB receive at slot {@code i} of the buffer to the SRQ. */
    public void post(IaUnderTest t, int i) {
        t.expectSuccess(srq.postRecv(1, new LmrTriplet[] {LmrTriplet.of(buffer, 1024L * i, 1024)}, 1000 + i), "dat_srq_post_recv " + i);
    }

    /** Sends {@code length} bytes of pattern {@code seed} from the active side and waits for the send to complete. */
    public void send(IaUnderTest t, long length, int seed) {
        var active = connection.active;
        DataPattern.fill(active.buffer().asSlice(0, length), seed);
        t.expectSuccess(active.ep.postSend(1, active.iov(0, length), seed, dat.api.CompletionFlags.DEFAULT), "dat_ep_post_send");
        t.success(active.requestEvd, "the send to the SRQ Endpoint");
    }

    public DatEvent receive(IaUnderTest t, String what) {
        return t.success(recvEvd, what);
    }
}
