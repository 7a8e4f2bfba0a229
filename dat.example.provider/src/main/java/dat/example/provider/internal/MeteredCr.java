package dat.example.provider.internal;

import dat.api.ConnectionRequest;
import dat.api.CrParams;
import dat.api.Endpoint;

/**
 * A metered Connection Request, made when the request event is reaped. It is forgotten once
 * accepted, rejected, handed off or freed, since the underlying request is then gone.
 */
final class MeteredCr extends MeteredHandle<ConnectionRequest> implements ConnectionRequest {

    MeteredCr(ConnectionRequest underlying, MeteredIa ia) {
        super(underlying, ia);
    }

    @Override
    public CrParams query(int crParamMask) {
        checkUsable();
        CrParams p = u.query(crParamMask);
        return new CrParams(p.remoteIaAddress(), p.remotePortQual(), p.privateData(), ia.handles.ep(p.localEp(), ia));
    }

    @Override
    public void accept(Endpoint ep, byte[] privateData) {
        checkUsable();
        u.accept(Handles.u(ep), privateData);
        ia.handles.forget(u);
    }

    @Override
    public void reject() {
        checkUsable();
        u.reject();
        ia.handles.forget(u);
    }

    @Override
    public void handoff(long connQual) {
        checkUsable();
        u.handoff(connQual);
        ia.handles.forget(u);
    }
}
