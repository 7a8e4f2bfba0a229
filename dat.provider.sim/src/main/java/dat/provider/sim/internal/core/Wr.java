package dat.provider.sim.internal.core;

import dat.api.DatReturn;
import dat.api.LmrTriplet;
import java.lang.foreign.MemorySegment;

/**
 * Pre-allocated work-request slots and the IOV checks and copies they need. A post copies the
 * consumer's IOV into a slot (so the consumer owns its IOV again when the post returns), after
 * checking every segment against its LMR: context, IA, PZ, bounds and local privilege. Copies go
 * through the LMRs' memory segments only, so a bad address can never reach other memory.
 */
public abstract class Wr {

    static final int OK = DatReturn.SUCCESS;

    public final SimLmr[] lmrs;
    public final long[] offsets;
    public final long[] lengths;
    public int segments;
    public long total;
    public long cookie;
    public int flags;

    Wr(int maxIov) {
        lmrs = new SimLmr[Math.max(1, maxIov)];
        offsets = new long[lmrs.length];
        lengths = new long[lmrs.length];
    }

    /**
     * Checks an IOV and copies it into this slot.
     *
     * @param ia the IA whose LMRs the IOV may name
     * @param pz the PZ the LMRs must be in (of the Endpoint, or of the SRQ)
     * @param n the number of segments
     * @param iov the segments
     * @param maxIov the most segments allowed
     * @param neededPrivilege {@link dat.api.MemPrivileges#LOCAL_READ} to read the memory,
     *     {@link dat.api.MemPrivileges#LOCAL_WRITE} to write it
     * @return {@link DatReturn#SUCCESS} or the post's error code
     */
    final int load(SimIa ia, SimPz pz, int n, LmrTriplet[] iov, int maxIov, int neededPrivilege) {
        if (n < 0 || n > maxIov || n > lmrs.length) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2); // num_segments
        }
        if (n > 0 && (iov == null || iov.length < n)) {
            return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3); // local_iov holds fewer
        }
        long sum = 0;
        int used = 0;
        ContextTable<SimLmr> table = ia.provider.lmrContexts;
        for (int i = 0; i < n; i++) {
            LmrTriplet t = iov[i];
            if (t == null) {
                return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
            }
            long len = t.segmentLength();
            if (len == 0) {
                continue; // a zero-length segment names no memory
            }
            if (len < 0) {
                return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
            }
            SimLmr lmr = table.get(t.lmrContext());
            if (lmr == null || lmr.ia() != ia || lmr.freed) {
                // "one of the LMRs used in local_iov was invalid" (dat_ep_post_send(3DAT))
                return DatReturn.error(DatReturn.PRIVILEGES_VIOLATION, DatReturn.NO_SUBTYPE);
            }
            if (lmr.pz != pz) {
                return DatReturn.error(DatReturn.PROTECTION_VIOLATION, DatReturn.NO_SUBTYPE);
            }
            if (!lmr.contains(t.virtualAddress(), len)) {
                return DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
            }
            if ((lmr.privileges & neededPrivilege) == 0) {
                return DatReturn.error(DatReturn.PRIVILEGES_VIOLATION, DatReturn.NO_SUBTYPE);
            }
            // a slot reposted with the buffer it held is left unwritten: its lines stay clean in the
            // cache of the thread that takes it (the peer, for a receive)
            if (lmrs[used] != lmr) {
                lmrs[used] = lmr;
            }
            long offset = lmr.offsetOf(t.virtualAddress());
            if (offsets[used] != offset) {
                offsets[used] = offset;
            }
            if (lengths[used] != len) {
                lengths[used] = len;
            }
            used++;
            sum += len;
        }
        if (segments != used) {
            segments = used;
        }
        if (total != sum) {
            total = sum;
        }
        return OK;
    }

    /** Copies another slot's IOV (an SRQ buffer taken by an Endpoint). */
    public final void copyFrom(Wr other) {
        segments = other.segments;
        total = other.total;
        cookie = other.cookie;
        flags = other.flags;
        System.arraycopy(other.lmrs, 0, lmrs, 0, other.segments);
        System.arraycopy(other.offsets, 0, offsets, 0, other.segments);
        System.arraycopy(other.lengths, 0, lengths, 0, other.segments);
    }

    /** Whether every LMR is still registered and its memory still alive. */
    public final boolean memoryValid() {
        for (int i = 0; i < segments; i++) {
            SimLmr lmr = lmrs[i];
            if (lmr.freed || !lmr.memory().scope().isAlive()) {
                return false;
            }
        }
        return true;
    }

    /** Drops the references to LMRs once the request completed. */
    public final void release() {
        for (int i = 0; i < segments; i++) {
            lmrs[i] = null;
        }
        segments = 0;
    }

    /**
     * Copies {@code len} bytes from the segments of {@code src} to those of {@code dst}, filling the
     * front segments of {@code dst} first (dat_ep_post_recv(3DAT)).
     */
    public static void copy(Wr src, Wr dst, long len) {
        int si = 0;
        int di = 0;
        long so = 0;
        long dOff = 0;
        long left = len;
        while (left > 0) {
            while (src.lengths[si] - so == 0) {
                si++;
                so = 0;
            }
            while (dst.lengths[di] - dOff == 0) {
                di++;
                dOff = 0;
            }
            long n = Math.min(left, Math.min(src.lengths[si] - so, dst.lengths[di] - dOff));
            MemorySegment.copy(src.lmrs[si].memory(), src.offsets[si] + so, dst.lmrs[di].memory(), dst.offsets[di] + dOff, n);
            so += n;
            dOff += n;
            left -= n;
        }
    }

    /** Copies the slot's bytes (gather) into {@code target} at {@code offset}. */
    public static void gather(Wr src, MemorySegment target, long offset) {
        long at = offset;
        for (int i = 0; i < src.segments; i++) {
            MemorySegment.copy(src.lmrs[i].memory(), src.offsets[i], target, at, src.lengths[i]);
            at += src.lengths[i];
        }
    }

    /** Copies {@code len} bytes of {@code source} at {@code offset} into the slot's segments (scatter). */
    public static void scatter(MemorySegment source, long offset, long len, Wr dst) {
        long at = offset;
        long left = len;
        for (int i = 0; i < dst.segments && left > 0; i++) {
            long n = Math.min(left, dst.lengths[i]);
            MemorySegment.copy(source, at, dst.lmrs[i].memory(), dst.offsets[i], n);
            at += n;
            left -= n;
        }
    }

    /** A receive buffer posted to an Endpoint or an SRQ. */
    public static final class Recv extends Wr {
        SimSrq srq;
        /**
         * Over TCP: this is the copy a connection's reader holds of an Endpoint's own receive it
         * took for a send, out of the Endpoint's ring and not yet completed (guarded by the
         * Endpoint's lock): the Endpoint still counts it as posted.
         */
        boolean heldByWire;

        public Recv(int maxIov) {
            super(maxIov);
        }

        /** A post's cookie and flags, written only where they differ (see {@link #load}); an own receive has no SRQ. */
        void setIfChanged(long userCookie, int completionFlags) {
            if (cookie != userCookie) {
                cookie = userCookie;
            }
            if (flags != completionFlags) {
                flags = completionFlags;
            }
            if (srq != null) {
                srq = null;
            }
        }
    }

    /** A send, RDMA read, RDMA write or RMR bind on an Endpoint's request queue. */
    public static final class Request extends Wr {
        public static final int SEND = 1;
        public static final int RDMA_WRITE = 2;
        public static final int RDMA_READ = 3;
        public static final int BIND = 4;
        /** {@code dat_ib_post_fetch_and_add}: {@link #operand} is added to the remote 64-bit value. */
        public static final int FETCH_AND_ADD = 5;
        /** {@code dat_ib_post_cmp_and_swap}: {@link #operand} is compared, {@link #swap} stored. */
        public static final int CMP_AND_SWAP = 6;
        /** {@code dat_ib_post_rdma_write_immed}: an RDMA write whose {@link #immediate} completes a receive of the peer's. */
        public static final int WRITE_IMMEDIATE = 7;

        public int op;
        public int remoteContext;
        public long remoteAddress;
        public long remoteLength;
        /** The added value of a fetch-and-add, the compared value of a compare-and-swap. */
        public long operand;
        /** The value a compare-and-swap stores. */
        public long swap;
        /** The immediate data of a write with immediate data. */
        public int immediate;
        SimRmr rmr;
        SimRmr.Binding binding;
        /**
         * Over TCP: the status this request completes with when its connection breaks, instead of
         * flushed (its own memory went away while it was transmitted); 0 (success) when none.
         */
        public int failedWith;
        /**
         * Over TCP, on the transmitting copy only: whether the frame lets the target hold its ACK
         * (the TCP wire's ACK_DEFERRABLE).
         */
        public boolean ackDeferrable;

        public Request(int maxIov) {
            super(maxIov);
        }

        /** Whether the request reads remote memory and lands a response locally (an RDMA read, an atomic). */
        public boolean readsRemote() {
            return op == RDMA_READ || op == FETCH_AND_ADD || op == CMP_AND_SWAP;
        }

        /** Whether the request is an atomic operation. */
        public boolean atomic() {
            return op == FETCH_AND_ADD || op == CMP_AND_SWAP;
        }

        /** Copies another request, its operation and remote fields included (a transmitting copy). */
        public void copyRequest(Request other) {
            copyFrom(other);
            op = other.op;
            remoteContext = other.remoteContext;
            remoteAddress = other.remoteAddress;
            remoteLength = other.remoteLength;
            operand = other.operand;
            swap = other.swap;
            immediate = other.immediate;
        }

        void clearRefs() {
            release();
            rmr = null;
            binding = null;
            failedWith = 0;
        }
    }
}
