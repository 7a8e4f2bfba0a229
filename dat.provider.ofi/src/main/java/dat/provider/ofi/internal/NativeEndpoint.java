package dat.provider.ofi.internal;

import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.ofi.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * The libfabric endpoint of one connection of a DAT Endpoint ({@code fi_endpoint}): made when the
 * Endpoint connects (from the IA's info) or accepts (from the request's info, which carries the
 * request's handle), bound to the IA's event queue, to the completion queues of the Endpoint's
 * EVDs and to its SRQ's shared receive context, enabled, and closed when the connection ends. A
 * libfabric {@code FI_EP_MSG} endpoint connects once; the DAT Endpoint outlives it and makes a new
 * one for its next connection. The function pointers of the data path are read once here.
 */
final class NativeEndpoint {

    final MemorySegment ep;
    final long address;
    final MemorySegment sendmsg;
    final MemorySegment inject;
    final MemorySegment recvmsg;
    final MemorySegment writemsg;
    final MemorySegment readmsg;
    /** {@code fi_fetch_atomicmsg} and {@code fi_compare_atomicmsg} where the IA offers atomics, else {@code NULL}. */
    final MemorySegment fetchAtomicmsg;
    final MemorySegment compareAtomicmsg;
    private boolean closed;

    /**
     * Makes, binds and enables the endpoint.
     *
     * @param info the IA's info (active side) or the request's (passive side)
     * @param sendCq the CQ of the Endpoint's requests
     * @param recvCq the CQ of its receives (of an SRQ Endpoint, the CQ of its own that its receive
     *     EVD reads: libfabric's completions of shared receives do not say which endpoint took them)
     * @param srx the SRQ's shared receive context, or {@code NULL}
     */
    NativeEndpoint(OfiIa ia, MemorySegment info, MemorySegment sendCq, MemorySegment recvCq, MemorySegment srx) {
        MemorySegment created = Ops.endpoint(ia.domain.domain, info);
        try {
            Ops.bind(created, ia.domain.eq, 0);
            // requests complete only when posted with FI_COMPLETION: a suppressed RDMA write can
            // ask for none (Posting); every receive completes
            Ops.bind(created, sendCq, Fi.TRANSMIT | Fi.SELECTIVE_COMPLETION);
            Ops.bind(created, recvCq, Fi.RECV);
            if (!srx.equals(MemorySegment.NULL)) {
                Ops.bind(created, srx, 0);
            }
            Ops.enable(created);
            this.sendmsg = Ops.fn(created, Structs.EP_MSG, Structs.FI_OPS_MSG, Structs.MSG_OPS_SENDMSG, "fi_sendmsg");
            this.inject = Ops.fn(created, Structs.EP_MSG, Structs.FI_OPS_MSG, Structs.MSG_OPS_INJECT, "fi_inject");
            this.recvmsg = Ops.fn(created, Structs.EP_MSG, Structs.FI_OPS_MSG, Structs.MSG_OPS_RECVMSG, "fi_recvmsg");
            this.writemsg = Ops.fn(created, Structs.EP_RMA, Structs.FI_OPS_RMA, Structs.RMA_OPS_WRITEMSG, "fi_writemsg");
            this.readmsg = Ops.fn(created, Structs.EP_RMA, Structs.FI_OPS_RMA, Structs.RMA_OPS_READMSG, "fi_readmsg");
            boolean atomics = ia.domain.atomics;
            this.fetchAtomicmsg = !atomics ? MemorySegment.NULL
                    : Ops.fn(created, Structs.EP_ATOMIC, Structs.FI_OPS_ATOMIC, Structs.ATOMIC_OPS_READWRITEMSG, "fi_fetch_atomicmsg");
            this.compareAtomicmsg = !atomics ? MemorySegment.NULL
                    : Ops.fn(created, Structs.EP_ATOMIC, Structs.FI_OPS_ATOMIC, Structs.ATOMIC_OPS_COMPWRITEMSG, "fi_compare_atomicmsg");
        } catch (NativeException e) {
            Ops.close(created);
            throw e;
        }
        this.ep = created;
        this.address = created.address();
    }

    /** {@code fi_close}: libfabric drops the connection; what it did not complete is the caller's to flush. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Ops.close(ep);
        } catch (NativeException e) {
            System.getLogger(NativeEndpoint.class.getName()).log(System.Logger.Level.WARNING, "fi_close of an endpoint failed", e);
        }
    }

    /** The local port of the connection: its Endpoint's local port qualifier (0 when unknown). */
    long localPort() {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment name = local.allocate(Sockaddr.MAX_SIZE, 8);
            Ops.getName(ep, name);
            InetSocketAddress address = Sockaddr.read(name);
            return address == null ? 0 : address.getPort();
        } catch (NativeException e) {
            return 0;
        }
    }
}
