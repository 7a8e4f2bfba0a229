package dat.provider.ofi.internal;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import java.util.concurrent.TimeUnit;

/**
 * Two Endpoints of one IA connected to each other through a PSP on the IA's own address, each
 * with its own DTO EVD: the fixture of the JMH benchmark.
 *
 * @param client the active side
 * @param server the passive side
 * @param clientEvd the client's request and receive EVD
 * @param serverEvd the server's request and receive EVD
 * @param pz the PZ of both
 */
public record LoopbackPair(Endpoint client, Endpoint server, EventDispatcher clientEvd, EventDispatcher serverEvd, ProtectionZone pz,
        EventDispatcher connEvd) {

    public static LoopbackPair connect(InterfaceAdapter ia) {
        return connect(ia, 256);
    }

    /** A pair whose two DTO EVDs hold {@code qlen} events. */
    public static LoopbackPair connect(InterfaceAdapter ia, int qlen) {
        return connect(ia, qlen, EvdFlags.DTO);
    }

    /** A pair whose two request and receive EVDs hold {@code qlen} events of the streams {@code evdFlags}. */
    public static LoopbackPair connect(InterfaceAdapter ia, int qlen, int evdFlags) {
        ProtectionZone pz = ia.createProtectionZone();
        EventDispatcher clientEvd = ia.createEventDispatcher(qlen, null, evdFlags);
        EventDispatcher serverEvd = ia.createEventDispatcher(qlen, null, evdFlags);
        EventDispatcher conn = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION | EvdFlags.CR);
        PublicServicePoint psp = ia.createPublicServicePointAny(conn, PspFlag.CONSUMER);
        Endpoint client = ia.createEndpoint(pz, clientEvd, clientEvd, conn, null);
        Endpoint server = ia.createEndpoint(pz, serverEvd, serverEvd, conn, null);
        long wait = TimeUnit.SECONDS.toMicros(10);
        client.connect(ia.query().iaAttributes().iaAddress(), psp.connQual(), wait, null, 0, 0);
        DatEvent event = new DatEvent();
        int established = 0;
        while (established < 2) {
            int rc = conn.await(wait, 1, event);
            if (rc != DatReturn.SUCCESS) {
                throw new IllegalStateException("connection event: " + DatReturn.describe(rc));
            }
            if (event.eventNumber() == EventNumber.CONNECTION_REQUEST_EVENT) {
                event.connectionRequest().accept(server, null);
            } else if (event.eventNumber() == EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                established++;
            } else {
                throw new IllegalStateException("unexpected " + event);
            }
        }
        psp.close();
        return new LoopbackPair(client, server, clientEvd, serverEvd, pz, conn);
    }
}
