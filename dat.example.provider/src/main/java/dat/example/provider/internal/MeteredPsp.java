package dat.example.provider.internal;

import dat.api.PspParams;
import dat.api.PublicServicePoint;

/** A metered Public Service Point. */
final class MeteredPsp extends MeteredHandle<PublicServicePoint> implements PublicServicePoint {

    MeteredPsp(PublicServicePoint underlying, MeteredIa ia) {
        super(underlying, ia);
    }

    @Override
    public long connQual() {
        checkUsable();
        return u.connQual();
    }

    @Override
    public PspParams query(int pspParamMask) {
        checkUsable();
        PspParams p = u.query(pspParamMask);
        return new PspParams(ia.handles.ia(p.ia()), p.connQual(), ia.handles.evd(p.evd()), p.flag());
    }
}
