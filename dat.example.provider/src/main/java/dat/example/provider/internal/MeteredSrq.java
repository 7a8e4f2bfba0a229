package dat.example.provider.internal;

import dat.api.LmrTriplet;
import dat.api.SharedReceiveQueue;
import dat.api.SrqParams;
import dat.api.ext.IaCounters;
import dat.api.ext.Operation;

/** A metered Shared Receive Queue: a posted receive counts as {@link Operation#RECEIVE}. */
final class MeteredSrq extends MeteredHandle<SharedReceiveQueue> implements SharedReceiveQueue {

    MeteredSrq(SharedReceiveQueue underlying, MeteredIa ia) {
        super(underlying, ia);
    }

    @Override
    public int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie) {
        if (ia.failed()) {
            return Codes.INVALID_HANDLE;
        }
        long bytes = IaCounters.iovBytes(numSegments, localIov);
        return ia.counters.post(Operation.RECEIVE, bytes, u.postRecv(numSegments, localIov, userCookie));
    }

    @Override
    public SrqParams query(int srqParamMask) {
        checkUsable();
        SrqParams p = u.query(srqParamMask);
        return new SrqParams(ia.handles.ia(p.ia()), p.state(), ia.handles.pz(p.pz()), p.maxRecvDtos(), p.maxRecvIov(),
                p.lowWatermark(), p.availableDtoCount(), p.outstandingDtoCount());
    }

    @Override
    public void resize(int maxRecvDtos) {
        checkUsable();
        u.resize(maxRecvDtos);
    }

    @Override
    public void setLowWatermark(int lowWatermark) {
        checkUsable();
        u.setLowWatermark(lowWatermark);
    }
}
