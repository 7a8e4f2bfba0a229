package dat.example.provider.internal;

import dat.api.ReservedServicePoint;
import dat.api.RspParams;

/** A metered Reserved Service Point. */
final class MeteredRsp extends MeteredHandle<ReservedServicePoint> implements ReservedServicePoint {

    MeteredRsp(ReservedServicePoint underlying, MeteredIa ia) {
        super(underlying, ia);
    }

    @Override
    public RspParams query(int rspParamMask) {
        checkUsable();
        RspParams p = u.query(rspParamMask);
        return new RspParams(ia.handles.ia(p.ia()), p.connQual(), ia.handles.evd(p.evd()), ia.handles.ep(p.ep(), ia));
    }
}
