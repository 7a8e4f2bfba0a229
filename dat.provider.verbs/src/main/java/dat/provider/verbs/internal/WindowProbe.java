package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dat.provider.verbs.internal.ffi.Inline;
import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import dat.provider.verbs.internal.ffi.Verbs;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * Finds out whether a device confines an access through a memory window to the window's range,
 * as verbs requires: two RC QPs of one protection domain are connected to each other on the port
 * (no rdma_cm, the port's own GID or LID), a window is bound over 64 bytes of a memory region on
 * one of them, and the other RDMA-writes 8 bytes through the window's key past those 64 bytes but
 * inside the region. A device that completes the write with {@code IBV_WC_REM_ACCESS_ERR}
 * enforces window bounds; one that completes it successfully (soft-RoCE on Linux 6.1, which
 * checks the region's range only) does not, and the provider then binds each window to a region
 * of exactly its range ({@link VerbsRmr}). A probe that cannot run to its end decides "not
 * enforced", which is always safe. Run once per device by the first IA opened on it.
 */
@SuppressWarnings("restricted") // native pointers are given their C sizes
final class WindowProbe {

    private static final int IBV_QPT_RC = 2;
    private static final int IBV_QPS_INIT = 1;
    private static final int IBV_QPS_RTR = 2;
    private static final int IBV_QPS_RTS = 3;
    private static final int IBV_ACCESS_LOCAL_WRITE = 1;
    private static final int IBV_ACCESS_REMOTE_WRITE = 2;
    private static final int IBV_ACCESS_MW_BIND = 16;
    private static final int IBV_LINK_LAYER_ETHERNET = 2;
    private static final int IBV_WC_REM_ACCESS_ERR = 10;
    private static final int INIT_MASK = 1 | 16 | 32 | 8; // STATE | PKEY_INDEX | PORT | ACCESS_FLAGS
    private static final int RTR_MASK = 1 | (1 << 7) | (1 << 8) | (1 << 12) | (1 << 15) | (1 << 17) | (1 << 20);
    private static final int RTS_MASK = 1 | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 13) | (1 << 16);
    private static final long WC = Structs.IBV_WC.byteSize();

    private WindowProbe() {
    }

    /**
     * Probes a device.
     *
     * @param verbs the libraries
     * @param context an open device context
     * @param port the port to connect the QPs on
     * @return whether an access past a window's range is refused
     */
    static boolean enforcesBounds(Verbs verbs, MemorySegment context, DevicePort port) {
        try (Arena arena = Arena.ofConfined(); Resources r = new Resources(verbs)) {
            r.pd = verbs.allocPd(context);
            r.cq = verbs.createCq(context, 16, 0, MemorySegment.NULL);
            MemorySegment target = arena.allocate(8192, 4096);
            MemorySegment source = arena.allocate(64, 64);
            r.targetMr = verbs.regMr(r.pd, target, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND);
            r.sourceMr = verbs.regMr(r.pd, source, 64, IBV_ACCESS_LOCAL_WRITE);
            r.a = qp(verbs, r, arena, port);
            r.b = qp(verbs, r, arena, port);
            connect(verbs, context, port, arena, r.a, r.b);
            connect(verbs, context, port, arena, r.b, r.a);
            int key = bind(verbs, context, port, arena, r, target.address() + 1024);
            if (key == 0) {
                return false;
            }
            // 8 bytes at 2048: past the 64-byte window, inside the region
            MemorySegment wr = arena.allocate(Structs.IBV_SEND_WR);
            MemorySegment sge = arena.allocate(Structs.IBV_SGE);
            sge.set(JAVA_LONG, Structs.SGE_ADDR, source.address());
            sge.set(JAVA_INT, Structs.SGE_LENGTH, 8);
            sge.set(JAVA_INT, Structs.SGE_LKEY, r.sourceMr.get(JAVA_INT, Structs.MR_LKEY));
            wr.set(JAVA_LONG, Structs.SEND_WR_WR_ID, 2);
            wr.set(ADDRESS, Structs.SEND_WR_SG_LIST, sge);
            wr.set(JAVA_INT, Structs.SEND_WR_NUM_SGE, 1);
            wr.set(JAVA_INT, Structs.SEND_WR_OPCODE, EpRequests.IBV_WR_RDMA_WRITE);
            wr.set(JAVA_INT, Structs.SEND_WR_SEND_FLAGS, 2); // SIGNALED
            wr.set(JAVA_LONG, Structs.SEND_WR_REMOTE_ADDR, target.address() + 2048);
            wr.set(JAVA_INT, Structs.SEND_WR_RKEY, key);
            if (post(r.b, wr, arena) != 0) {
                return false;
            }
            return poll(r.cq, arena) == IBV_WC_REM_ACCESS_ERR;
        } catch (NativeException | IllegalStateException e) {
            System.getLogger(WindowProbe.class.getName()).log(System.Logger.Level.DEBUG, "memory window probe of "
                    + port.deviceName() + " did not run: " + e);
            return false;
        }
    }

    /** What the probe made, destroyed in reverse order. */
    private static final class Resources implements AutoCloseable {
        final Verbs verbs;
        MemorySegment pd = MemorySegment.NULL;
        MemorySegment cq = MemorySegment.NULL;
        MemorySegment targetMr = MemorySegment.NULL;
        MemorySegment sourceMr = MemorySegment.NULL;
        MemorySegment a = MemorySegment.NULL;
        MemorySegment b = MemorySegment.NULL;
        MemorySegment mw = MemorySegment.NULL;

        Resources(Verbs verbs) {
            this.verbs = verbs;
        }

        @Override
        public void close() {
            try {
                if (!mw.equals(MemorySegment.NULL)) {
                    MemorySegment dealloc = Inline.op(contextOf(mw), Structs.CONTEXT_OPS_DEALLOC_MW);
                    int ignored = (int) Inline.DEALLOC_MW.invokeExact(dealloc, mw);
                }
            } catch (Throwable t) {
                // the PD's teardown below reports what remains
            }
            for (MemorySegment qp : new MemorySegment[] {b, a}) {
                if (!qp.equals(MemorySegment.NULL)) {
                    verbs.destroyQp(qp);
                }
            }
            for (MemorySegment mr : new MemorySegment[] {sourceMr, targetMr}) {
                if (!mr.equals(MemorySegment.NULL)) {
                    verbs.deregMr(mr);
                }
            }
            if (!cq.equals(MemorySegment.NULL)) {
                verbs.destroyCq(cq);
            }
            if (!pd.equals(MemorySegment.NULL)) {
                verbs.deallocPd(pd);
            }
        }
    }

    private static MemorySegment contextOf(MemorySegment object) {
        return object.get(ADDRESS, 0).reinterpret(Structs.IBV_CONTEXT.byteSize());
    }

    private static MemorySegment qp(Verbs verbs, Resources r, Arena arena, DevicePort port) {
        MemorySegment init = arena.allocate(Structs.IBV_QP_INIT_ATTR);
        init.set(ADDRESS, Structs.QP_INIT_SEND_CQ, r.cq);
        init.set(ADDRESS, Structs.QP_INIT_RECV_CQ, r.cq);
        init.set(JAVA_INT, Structs.QP_INIT_MAX_SEND_WR, 4);
        init.set(JAVA_INT, Structs.QP_INIT_MAX_RECV_WR, 1);
        init.set(JAVA_INT, Structs.QP_INIT_MAX_SEND_SGE, 1);
        init.set(JAVA_INT, Structs.QP_INIT_MAX_RECV_SGE, 1);
        init.set(JAVA_INT, Structs.QP_INIT_QP_TYPE, IBV_QPT_RC);
        MemorySegment qp = verbs.createQp(r.pd, init);
        MemorySegment attr = arena.allocate(Structs.IBV_QP_ATTR);
        attr.set(JAVA_INT, Structs.QP_ATTR_QP_STATE, IBV_QPS_INIT);
        attr.set(JAVA_BYTE, Structs.QP_ATTR_PORT_NUM, (byte) port.port());
        attr.set(JAVA_INT, Structs.QP_ATTR_ACCESS_FLAGS, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
        try {
            verbs.modifyQp(qp, attr, INIT_MASK);
        } catch (NativeException e) {
            verbs.destroyQp(qp);
            throw e;
        }
        return qp;
    }

    /** Moves {@code qp} to RTR and RTS, its destination {@code peer} on the same port. */
    private static void connect(Verbs verbs, MemorySegment context, DevicePort port, Arena arena, MemorySegment qp,
            MemorySegment peer) {
        MemorySegment portAttr = arena.allocate(Structs.IBV_PORT_ATTR);
        verbs.queryPort(context, port.port(), portAttr);
        MemorySegment attr = arena.allocate(Structs.IBV_QP_ATTR);
        attr.set(JAVA_INT, Structs.QP_ATTR_QP_STATE, IBV_QPS_RTR);
        attr.set(JAVA_INT, Structs.QP_ATTR_PATH_MTU, portAttr.get(JAVA_INT, Structs.PORT_ATTR_ACTIVE_MTU));
        attr.set(JAVA_INT, Structs.QP_ATTR_DEST_QP_NUM, peer.get(JAVA_INT, Structs.QP_QP_NUM));
        attr.set(JAVA_BYTE, Structs.QP_ATTR_MAX_DEST_RD_ATOMIC, (byte) 1);
        attr.set(JAVA_BYTE, Structs.QP_ATTR_MIN_RNR_TIMER, (byte) 12);
        attr.set(JAVA_BYTE, Structs.QP_ATTR_AH_PORT_NUM, (byte) port.port());
        if (portAttr.get(JAVA_BYTE, Structs.PORT_ATTR_LINK_LAYER) == IBV_LINK_LAYER_ETHERNET) {
            attr.set(JAVA_BYTE, Structs.QP_ATTR_AH_IS_GLOBAL, (byte) 1);
            verbs.queryGid(context, port.port(), 0, attr.asSlice(Structs.QP_ATTR_AH_DGID, 16));
            attr.set(JAVA_BYTE, Structs.QP_ATTR_AH_SGID_INDEX, (byte) 0);
            attr.set(JAVA_BYTE, Structs.QP_ATTR_AH_HOP_LIMIT, (byte) 1);
        } else {
            attr.set(JAVA_SHORT, Structs.QP_ATTR_AH_DLID, portAttr.get(JAVA_SHORT, Structs.PORT_ATTR_LID));
        }
        verbs.modifyQp(qp, attr, RTR_MASK);
        attr.fill((byte) 0);
        attr.set(JAVA_INT, Structs.QP_ATTR_QP_STATE, IBV_QPS_RTS);
        attr.set(JAVA_BYTE, Structs.QP_ATTR_TIMEOUT, (byte) 14);
        attr.set(JAVA_BYTE, Structs.QP_ATTR_RETRY_CNT, (byte) 2);
        attr.set(JAVA_BYTE, Structs.QP_ATTR_RNR_RETRY, (byte) 2);
        attr.set(JAVA_BYTE, Structs.QP_ATTR_MAX_RD_ATOMIC, (byte) 1);
        verbs.modifyQp(qp, attr, RTS_MASK);
    }

    /** Allocates a window and binds 64 bytes at {@code address} on QP a; returns its key, or 0. */
    private static int bind(Verbs verbs, MemorySegment context, DevicePort port, Arena arena, Resources r, long address)
            throws NativeException {
        MemorySegment capture = arena.allocate(Linker.Option.captureStateLayout());
        try {
            r.mw = ((MemorySegment) Inline.ALLOC_MW.invokeExact(Inline.op(context, Structs.CONTEXT_OPS_ALLOC_MW), capture, r.pd,
                    port.windowType())).reinterpret(Structs.IBV_MW.byteSize());
        } catch (Throwable t) {
            return 0;
        }
        if (r.mw.address() == 0) {
            r.mw = MemorySegment.NULL;
            return 0;
        }
        int key = r.mw.get(JAVA_INT, Structs.MW_RKEY);
        int newKey = VerbsRmr.nextKey(key);
        if (port.windowType() == 2) {
            MemorySegment wr = arena.allocate(Structs.IBV_SEND_WR);
            wr.set(JAVA_LONG, Structs.SEND_WR_WR_ID, 1);
            wr.set(JAVA_INT, Structs.SEND_WR_OPCODE, EpRequests.IBV_WR_BIND_MW);
            wr.set(JAVA_INT, Structs.SEND_WR_SEND_FLAGS, 2); // SIGNALED
            wr.set(ADDRESS, Structs.SEND_WR_BIND_MW_MW, r.mw);
            wr.set(JAVA_INT, Structs.SEND_WR_BIND_MW_RKEY, newKey);
            wr.set(ADDRESS, Structs.SEND_WR_BIND_MW_MR, r.targetMr);
            wr.set(JAVA_LONG, Structs.SEND_WR_BIND_MW_ADDR, address);
            wr.set(JAVA_LONG, Structs.SEND_WR_BIND_MW_LENGTH, 64);
            wr.set(JAVA_INT, Structs.SEND_WR_BIND_MW_ACCESS, IBV_ACCESS_REMOTE_WRITE);
            if (post(r.a, wr, arena) != 0) {
                return 0;
            }
        } else {
            MemorySegment bind = arena.allocate(Structs.IBV_MW_BIND);
            bind.set(JAVA_LONG, Structs.MW_BIND_WR_ID, 1);
            bind.set(JAVA_INT, Structs.MW_BIND_SEND_FLAGS, 2);
            bind.set(ADDRESS, Structs.MW_BIND_MR, r.targetMr);
            bind.set(JAVA_LONG, Structs.MW_BIND_ADDR, address);
            bind.set(JAVA_LONG, Structs.MW_BIND_LENGTH, 64);
            bind.set(JAVA_INT, Structs.MW_BIND_ACCESS, IBV_ACCESS_REMOTE_WRITE);
            try {
                int result = (int) Inline.BIND_MW.invokeExact(Inline.op(context, Structs.CONTEXT_OPS_BIND_MW), r.a, r.mw, bind);
                if (result != 0) {
                    return 0;
                }
            } catch (Throwable t) {
                return 0;
            }
            newKey = r.mw.get(JAVA_INT, Structs.MW_RKEY);
        }
        return poll(r.cq, arena) == 0 ? newKey : 0;
    }

    private static int post(MemorySegment qp, MemorySegment wr, Arena arena) {
        MemorySegment bad = arena.allocate(ADDRESS);
        try {
            return (int) Inline.POST_SEND.invokeExact(Inline.op(contextOf(qp), Structs.CONTEXT_OPS_POST_SEND), qp, wr, bad);
        } catch (Throwable t) {
            return -1;
        }
    }

    /** Polls one completion (at most 5 s); returns its status, or -1 when none came. */
    private static int poll(MemorySegment cq, Arena arena) {
        MemorySegment wc = arena.allocate(WC);
        MemorySegment fn = Inline.op(contextOf(cq), Structs.CONTEXT_OPS_POLL_CQ);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            int n;
            try {
                n = (int) Inline.POLL_CQ.invokeExact(fn, cq, 1, wc);
            } catch (Throwable t) {
                return -1;
            }
            if (n > 0) {
                return wc.get(JAVA_INT, Structs.WC_STATUS);
            }
            if (n < 0) {
                return -1;
            }
            Thread.onSpinWait();
        }
        return -1;
    }
}
