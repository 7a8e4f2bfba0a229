package dat.example.provider.internal;

import dat.api.CloseFlag;
import dat.api.Endpoint;
import dat.api.EpParams;
import dat.api.EpRecvInfo;
import dat.api.EpStatus;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IaCounters;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import dat.api.ext.Operation;
import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * A metered Endpoint: every post is forwarded and counted (operation and bytes when accepted, the
 * return type when refused). It offers the extensions its underlying Endpoint offers, and nothing
 * more: {@link AtomicEndpoint} and {@link ImmediateDataEndpoint}, also counted.
 */
final class MeteredEp extends MeteredHandle<Endpoint> implements Endpoint, AtomicEndpoint, ImmediateDataEndpoint {

    private final AtomicEndpoint atomic;
    private final ImmediateDataEndpoint immediate;

    MeteredEp(Endpoint underlying, MeteredIa ia) {
        super(underlying, ia);
        this.atomic = underlying.extension(AtomicEndpoint.class).orElse(null);
        this.immediate = underlying.extension(ImmediateDataEndpoint.class).orElse(null);
    }

    @Override
    public <T> Optional<T> extension(Class<T> type) {
        if ((type == AtomicEndpoint.class && atomic != null) || (type == ImmediateDataEndpoint.class && immediate != null)) {
            return Optional.of(type.cast(this));
        }
        return Optional.empty();
    }

    // ---------------------------------------------------------------------------------------------
    // data path: forward, count, return the code unchanged
    // ---------------------------------------------------------------------------------------------

    @Override
    public int postSend(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        if (ia.failed()) {
            return Codes.INVALID_HANDLE;
        }
        long bytes = IaCounters.iovBytes(numSegments, localIov);
        return ia.counters.post(Operation.SEND, bytes, u.postSend(numSegments, localIov, userCookie, completionFlags));
    }

    @Override
    public int postRecv(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        if (ia.failed()) {
            return Codes.INVALID_HANDLE;
        }
        long bytes = IaCounters.iovBytes(numSegments, localIov);
        return ia.counters.post(Operation.RECEIVE, bytes, u.postRecv(numSegments, localIov, userCookie, completionFlags));
    }

    @Override
    public int postRdmaRead(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        if (ia.failed()) {
            return Codes.INVALID_HANDLE;
        }
        long bytes = IaCounters.iovBytes(numSegments, localIov);
        return ia.counters.post(Operation.RDMA_READ, bytes,
                u.postRdmaRead(numSegments, localIov, userCookie, remoteBuffer, completionFlags));
    }

    @Override
    public int postRdmaWrite(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        if (ia.failed()) {
            return Codes.INVALID_HANDLE;
        }
        long bytes = IaCounters.iovBytes(numSegments, localIov);
        return ia.counters.post(Operation.RDMA_WRITE, bytes,
                u.postRdmaWrite(numSegments, localIov, userCookie, remoteBuffer, completionFlags));
    }

    @Override
    public int postFetchAndAdd(long addValue, LmrTriplet localBuffer, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        if (ia.failed()) {
            return Codes.INVALID_HANDLE;
        }
        return ia.counters.post(Operation.FETCH_AND_ADD, IbExtension.ATOMIC_OPERAND_SIZE,
                atomic.postFetchAndAdd(addValue, localBuffer, userCookie, remoteBuffer, completionFlags));
    }

    @Override
    public int postCompareAndSwap(long compareValue, long swapValue, LmrTriplet localBuffer, long userCookie,
            RmrTriplet remoteBuffer, int completionFlags) {
        if (ia.failed()) {
            return Codes.INVALID_HANDLE;
        }
        return ia.counters.post(Operation.COMPARE_AND_SWAP, IbExtension.ATOMIC_OPERAND_SIZE,
                atomic.postCompareAndSwap(compareValue, swapValue, localBuffer, userCookie, remoteBuffer, completionFlags));
    }

    @Override
    public int postRdmaWriteImmediate(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int immediateData, int completionFlags) {
        if (ia.failed()) {
            return Codes.INVALID_HANDLE;
        }
        long bytes = IaCounters.iovBytes(numSegments, localIov);
        return ia.counters.post(Operation.RDMA_WRITE_IMMEDIATE, bytes, immediate.postRdmaWriteImmediate(numSegments,
                localIov, userCookie, remoteBuffer, immediateData, completionFlags));
    }

    // ---------------------------------------------------------------------------------------------
    // control path
    // ---------------------------------------------------------------------------------------------

    @Override
    public void connect(InetSocketAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
            int qos, int connectFlags) {
        checkUsable();
        u.connect(remoteIaAddress, remoteConnQual, timeoutMicros, privateData, qos, connectFlags);
    }

    @Override
    public void dupConnect(Endpoint dupEp, long timeoutMicros, byte[] privateData, int qos) {
        checkUsable();
        u.dupConnect(Handles.u(dupEp), timeoutMicros, privateData, qos);
    }

    @Override
    public void disconnect(CloseFlag flag) {
        checkUsable();
        u.disconnect(flag);
    }

    @Override
    public EpParams query(long epParamMask) {
        checkUsable();
        EpParams p = u.query(epParamMask);
        Handles h = ia.handles;
        return p.toBuilder().ia(h.ia(p.ia())).pz(h.pz(p.pz())).recvEvd(h.evd(p.recvEvd())).requestEvd(h.evd(p.requestEvd()))
                .connectEvd(h.evd(p.connectEvd())).srq(h.srq(p.srq())).build();
    }

    @Override
    public void modify(long epParamMask, EpParams params) {
        checkUsable();
        EpParams underlying = params == null ? null
                : params.toBuilder().ia(Handles.u(params.ia())).pz(Handles.u(params.pz())).recvEvd(Handles.u(params.recvEvd()))
                        .requestEvd(Handles.u(params.requestEvd())).connectEvd(Handles.u(params.connectEvd()))
                        .srq(Handles.u(params.srq())).build();
        u.modify(epParamMask, underlying);
    }

    @Override
    public EpStatus getStatus() {
        checkUsable();
        return u.getStatus();
    }

    @Override
    public void reset() {
        checkUsable();
        u.reset();
    }

    @Override
    public EpRecvInfo recvQuery() {
        checkUsable();
        return u.recvQuery();
    }

    @Override
    public void setWatermark(int softHighWatermark, int hardHighWatermark) {
        checkUsable();
        u.setWatermark(softHighWatermark, hardHighWatermark);
    }
}
