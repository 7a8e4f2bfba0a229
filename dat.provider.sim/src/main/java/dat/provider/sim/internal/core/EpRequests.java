package dat.provider.sim.internal.core;

import dat.api.CompletionFlags;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpAttributes;
import dat.api.EpState;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;
import dat.api.RmrTriplet;
import dat.api.ext.IbExtension;
import dat.api.ext.Operation;

/**
 * An Endpoint's request queue: the posts of sends, RDMA reads and writes, atomics, writes with
 * immediate data and RMR binds (their checks, then a copy of the IOV into a pre-allocated slot),
 * and the in-order completion and flush of what is queued. The ring and its counters are guarded
 * by the Endpoint's lock ({@link SimEndpoint#acquire}); a post hands the queue to the Endpoint's
 * wire, which executes or transmits it.
 */
final class EpRequests {

    private static final int OK = DatReturn.SUCCESS;
    /** The statistics' operation of each {@link Wr.Request} kind. */
    private static final Operation[] OPERATIONS = {null, Operation.SEND, Operation.RDMA_WRITE, Operation.RDMA_READ, Operation.RMR_BIND,
            Operation.FETCH_AND_ADD, Operation.COMPARE_AND_SWAP, Operation.RDMA_WRITE_IMMEDIATE};

    private final SimEndpoint ep;
    // the ring, guarded by the Endpoint's lock
    Wr.Request[] requests;
    int reqHead;
    int reqCount;
    private int readsOutstanding;

    EpRequests(SimEndpoint ep, EpAttributes attrs) {
        this.ep = ep;
        this.requests = newRequests(attrs.maxRequestDtos(), requestIov(attrs));
    }

    static Wr.Request[] newRequests(int n, int iov) {
        Wr.Request[] r = new Wr.Request[n];
        for (int i = 0; i < n; i++) {
            r[i] = new Wr.Request(iov);
        }
        return r;
    }

    /** The IOV segments a request slot holds: the largest of the request IOV limits. */
    static int requestIov(EpAttributes a) {
        return Math.max(a.maxRequestIov(), Math.max(a.maxRdmaReadIov(), a.maxRdmaWriteIov()));
    }

    public int postSend(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags) {
        int status = postRequest(Wr.Request.SEND, numSegments, localIov, userCookie, null, completionFlags, 0, 0, 0);
        return ep.ia.statistics.refused(status);
    }

    public int postRdmaWrite(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        int status = postRequest(Wr.Request.RDMA_WRITE, numSegments, localIov, userCookie, remoteBuffer, completionFlags, 0, 0, 0);
        return ep.ia.statistics.refused(status);
    }

    public int postRdmaRead(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int completionFlags) {
        int status = postRequest(Wr.Request.RDMA_READ, numSegments, localIov, userCookie, remoteBuffer, completionFlags, 0, 0, 0);
        return ep.ia.statistics.refused(status);
    }

    public int postFetchAndAdd(long addValue, LmrTriplet localBuffer, long userCookie, RmrTriplet remoteBuffer, int completionFlags) {
        int status = postAtomic(Wr.Request.FETCH_AND_ADD, addValue, 0, localBuffer, userCookie, remoteBuffer, completionFlags,
                DatReturn.INVALID_ARG3, DatReturn.INVALID_ARG5, DatReturn.INVALID_ARG6);
        return ep.ia.statistics.refused(status);
    }

    public int postCompareAndSwap(long compareValue, long swapValue, LmrTriplet localBuffer, long userCookie,
            RmrTriplet remoteBuffer, int completionFlags) {
        int status = postAtomic(Wr.Request.CMP_AND_SWAP, compareValue, swapValue, localBuffer, userCookie, remoteBuffer,
                completionFlags, DatReturn.INVALID_ARG4, DatReturn.INVALID_ARG6, DatReturn.INVALID_ARG7);
        return ep.ia.statistics.refused(status);
    }

    /**
     * An atomic's own checks (dat_ib_extensions.h): a local and a remote buffer of exactly 8 bytes,
     * the remote one 8-byte aligned; then those of an RDMA read, whose completion flags it has.
     */
    private int postAtomic(int op, long operand, long swap, LmrTriplet local, long cookie, RmrTriplet remote, int flags,
            int localArg, int remoteArg, int flagsArg) {
        if (ep.freed || !ep.ia.usable()) {
            return ep.invalidCode();
        }
        if (local == null) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, localArg);
        }
        if (remote == null || remote.targetAddress() % IbExtension.ATOMIC_OPERAND_SIZE != 0) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, remoteArg);
        }
        if (local.segmentLength() != IbExtension.ATOMIC_OPERAND_SIZE || remote.segmentLength() != IbExtension.ATOMIC_OPERAND_SIZE) {
            return DatReturn.error(DatReturn.LENGTH_ERROR, DatReturn.NO_SUBTYPE);
        }
        if ((flags & CompletionFlags.SOLICITED_WAIT) != 0) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, flagsArg);
        }
        atomicIov.set(local);
        try {
            return postRequest(op, 1, atomicIov.get(), cookie, remote, flags, operand, swap, 0);
        } finally {
            atomicIov.clear();
        }
    }

    /** The one-entry IOV of an atomic's local buffer, per posting thread: no allocation per post. */
    private static final OneEntryIov atomicIov = new OneEntryIov();

    /** A one-entry IOV per thread, reused. */
    private static final class OneEntryIov extends ThreadLocal<LmrTriplet[]> {
        protected LmrTriplet[] initialValue() {
            return new LmrTriplet[1];
        }

        void set(LmrTriplet t) {
            get()[0] = t;
        }

        void clear() {
            get()[0] = null;
        }
    }

    public int postRdmaWriteImmediate(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteBuffer,
            int immediateData, int completionFlags) {
        int status = postRequest(Wr.Request.WRITE_IMMEDIATE, numSegments, localIov, userCookie, remoteBuffer, completionFlags, 0, 0,
                immediateData);
        return ep.ia.statistics.refused(status);
    }

    private int postRequest(int op, int n, LmrTriplet[] iov, long cookie, RmrTriplet remote, int flags, long operand, long swap,
            int immediate) {
        if (ep.freed || !ep.ia.usable()) {
            return ep.invalidCode();
        }
        if (op != Wr.Request.SEND && remote == null) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        }
        int flagsArg = op == Wr.Request.SEND ? DatReturn.INVALID_ARG5
                : op == Wr.Request.WRITE_IMMEDIATE ? DatReturn.INVALID_ARG7
                : op == Wr.Request.CMP_AND_SWAP ? DatReturn.INVALID_ARG7 : DatReturn.INVALID_ARG6;
        // SOLICITED_WAIT asks for the peer's solicited event: a send's, and (as in OFED dapl) a write's with immediate data
        if (!CompletionFlags.isValid(flags)
                || (op != Wr.Request.SEND && op != Wr.Request.WRITE_IMMEDIATE && (flags & CompletionFlags.SOLICITED_WAIT) != 0)) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, flagsArg);
        }
        EpAttributes a = ep.attrs;
        if ((flags & CompletionFlags.UNSIGNALLED) != 0 && a.requestCompletionFlags() != CompletionFlags.UNSIGNALLED) {
            // dat_ep_post_send(3DAT): only valid on an Endpoint configured for unsignalled completions
            return DatReturn.error(DatReturn.INVALID_PARAMETER, flagsArg);
        }
        EpState s = ep.state;
        if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
            return DatReturn.error(DatReturn.INVALID_STATE, SimEndpoint.stateSubtype(s));
        }
        int maxIov = op == Wr.Request.SEND ? a.maxRequestIov()
                : op == Wr.Request.RDMA_WRITE || op == Wr.Request.WRITE_IMMEDIATE ? a.maxRdmaWriteIov() : a.maxRdmaReadIov();
        int privilege = op == Wr.Request.RDMA_READ || op == Wr.Request.FETCH_AND_ADD || op == Wr.Request.CMP_AND_SWAP
                ? MemPrivileges.LOCAL_WRITE : MemPrivileges.LOCAL_READ;
        Wire transmitAfter = null;
        SpinLock l = ep.acquire();
        try {
            s = ep.state;
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
                return DatReturn.error(DatReturn.INVALID_STATE, SimEndpoint.stateSubtype(s));
            }
            if (reqCount == requests.length) {
                return DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY);
            }
            boolean readsRemote = op == Wr.Request.RDMA_READ || op == Wr.Request.FETCH_AND_ADD || op == Wr.Request.CMP_AND_SWAP;
            if (readsRemote && readsOutstanding >= a.maxRdmaReadOut()) {
                return DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_CREDITS);
            }
            Wr.Request wr = requestAt(reqCount);
            int code = wr.load(ep.ia, ep.pz, n, iov, maxIov, privilege);
            if (code == OK) {
                code = checkLengths(wr, op, remote, a);
            }
            if (code != OK) {
                wr.release();
                return code;
            }
            wr.op = op;
            wr.cookie = cookie;
            wr.flags = flags;
            wr.operand = operand;
            wr.swap = swap;
            wr.immediate = immediate;
            reqCount++;
            ep.counters.posted(OPERATIONS[op], wr.total);
            if (readsRemote) {
                readsOutstanding++;
            }
            if (s == EpState.DISCONNECTED) {
                flushRequests();
            } else {
                Wire w = ep.wire;
                if (w != null && w.requestsQueued(ep, true)) {
                    transmitAfter = w;
                }
            }
        } finally {
            l.unlock();
        }
        if (transmitAfter != null) {
            transmitAfter.transmitNow(ep);
        }
        return OK;
    }

    /** A loaded request's lengths against the attributes and its remote buffer; sets its remote fields. */
    private static int checkLengths(Wr.Request wr, int op, RmrTriplet remote, EpAttributes a) {
        if (op == Wr.Request.SEND) {
            return wr.total > a.maxMessageSize() ? DatReturn.error(DatReturn.LENGTH_ERROR, DatReturn.NO_SUBTYPE) : OK;
        }
        long rlen = remote.segmentLength();
        if (rlen < 0 || rlen > a.maxRdmaSize() || wr.total > a.maxRdmaSize()) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        }
        // dat_ep_post_rdma_write(3DAT) / _read(3DAT): the receiving buffer is too small
        boolean writes = op == Wr.Request.RDMA_WRITE || op == Wr.Request.WRITE_IMMEDIATE;
        if ((writes && wr.total > rlen) || (!writes && rlen > wr.total)) {
            return DatReturn.error(DatReturn.LENGTH_ERROR, DatReturn.NO_SUBTYPE);
        }
        wr.remoteContext = remote.rmrContext();
        wr.remoteAddress = remote.targetAddress();
        wr.remoteLength = rlen;
        return OK;
    }

    /** Posts an RMR bind work request (dat_rmr_bind(3DAT)), counted; the RMR checked everything else. */
    int postBind(SimRmr rmr, SimRmr.Binding binding, long cookie, int flags) {
        return ep.ia.statistics.refused(queueBind(rmr, binding, cookie, flags));
    }

    private int queueBind(SimRmr rmr, SimRmr.Binding binding, long cookie, int flags) {
        if (ep.freed || !ep.ia.usable()) {
            return ep.invalidCode();
        }
        Wire transmitAfter = null;
        SpinLock l = ep.acquire();
        try {
            EpState s = ep.state;
            if (s != EpState.CONNECTED && s != EpState.DISCONNECTED) {
                return DatReturn.error(DatReturn.INVALID_STATE, SimEndpoint.stateSubtype(s));
            }
            if (reqCount == requests.length) {
                return DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY);
            }
            Wr.Request wr = requestAt(reqCount);
            wr.segments = 0;
            wr.total = 0;
            wr.op = Wr.Request.BIND;
            wr.cookie = cookie;
            wr.flags = flags;
            wr.rmr = rmr;
            wr.binding = binding;
            reqCount++;
            ep.counters.posted(Operation.RMR_BIND, binding == null ? 0 : binding.length);
            if (s == EpState.DISCONNECTED) {
                flushRequests();
            } else {
                Wire w = ep.wire;
                if (w != null && w.requestsQueued(ep, false)) {
                    transmitAfter = w; // an end the queue found, which needs no lock held
                }
            }
        } finally {
            l.unlock();
        }
        if (transmitAfter != null) {
            transmitAfter.transmitNow(ep);
        }
        return OK;
    }

    /** Requests queued and not completed; with the lock held. */
    public int requestCount() {
        return reqCount;
    }

    /** The request slot {@code fromHead} places behind the head of the ring; with the lock held. */
    public Wr.Request requestAt(int fromHead) {
        int idx = reqHead + fromHead;
        return requests[idx >= requests.length ? idx - requests.length : idx];
    }

    /**
     * Generates the completion of the head request and removes it; a bind's RMR learns its outcome
     * (successful with {@code status} SUCCESS). With the lock held.
     */
    public void completeHead(int status, long len) {
        Wr.Request wr = requests[reqHead];
        if (wr.op == Wr.Request.BIND) {
            wr.rmr.bindDone(wr.binding, status == DtoCompletionStatus.SUCCESS);
        }
        SimEvd evd = ep.requestEvd;
        boolean success = status == DtoCompletionStatus.SUCCESS;
        if (evd != null && (!success || (wr.flags & CompletionFlags.SUPPRESS) == 0)) {
            boolean notify = !success || (wr.flags & CompletionFlags.UNSIGNALLED) == 0;
            switch (wr.op) {
                case Wr.Request.BIND -> evd.postRmrBind(wr.rmr, wr.cookie, status, notify);
                case Wr.Request.FETCH_AND_ADD -> evd.postDto(IbExtension.IB_DTO_EVENT, ep, wr.cookie, status, len, notify, null,
                        IbExtension.FETCH_AND_ADD, 0);
                case Wr.Request.CMP_AND_SWAP -> evd.postDto(IbExtension.IB_DTO_EVENT, ep, wr.cookie, status, len, notify, null,
                        IbExtension.CMP_AND_SWAP, 0);
                case Wr.Request.WRITE_IMMEDIATE -> evd.postDto(IbExtension.IB_DTO_EVENT, ep, wr.cookie, status, len, notify, null,
                        IbExtension.RDMA_WRITE_IMMED, 0);
                default -> evd.postDto(ep, wr.cookie, status, len, notify, null);
            }
        }
        if (wr.readsRemote()) {
            readsOutstanding--;
        }
        wr.clearRefs();
        if (++reqHead == requests.length) {
            reqHead = 0;
        }
        reqCount--;
    }

    /** Flushes every queued request; with the lock held. */
    public void flushRequests() {
        while (reqCount > 0) {
            Wr.Request wr = requests[reqHead];
            completeHead(wr.failedWith != DtoCompletionStatus.SUCCESS ? wr.failedWith : DtoCompletionStatus.ERR_FLUSHED, 0);
        }
    }

}
