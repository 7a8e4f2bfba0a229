package dat.provider.verbs.internal.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The {@code static inline} verbs of {@code <infiniband/verbs.h>}, which libibverbs does not
 * export: each is a call through a function pointer of the provider driver found in
 * {@code struct ibv_context.ops} (for example {@code qp->context->ops.post_send}). The handles are
 * address-less: the function pointer is their first argument, read once per object and cached
 * by the caller ({@link #op}).
 *
 * <p>The short, non-blocking data-path calls use {@link Linker.Option#critical(boolean)
 * critical(false)}: no thread-state transition, measured to matter for post + poll. Nothing that
 * may block goes through a critical handle.
 *
 * <p>These handles depend on no library, so they are constants; what they call belongs to the
 * driver that the caller's {@link Verbs} loaded, and callers never use a cached pointer after
 * the object it came from is destroyed (the provider checks its handles in Java first).
 */
@SuppressWarnings("restricted") // this package is the one place that calls native code
public final class Inline {

    private Inline() {
    }

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    /** {@code int post_send(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)}: 0 or an errno value. */
    public static final MethodHandle POST_SEND =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), CRITICAL);

    /** {@code int post_recv(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **)}: 0 or an errno value. */
    public static final MethodHandle POST_RECV =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), CRITICAL);

    /** {@code int post_srq_recv(struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **)}. */
    public static final MethodHandle POST_SRQ_RECV =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), CRITICAL);

    /** {@code int poll_cq(struct ibv_cq *, int num_entries, struct ibv_wc *)}: the count, or negative. */
    public static final MethodHandle POLL_CQ =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), CRITICAL);

    /** {@code int req_notify_cq(struct ibv_cq *, int solicited_only)}: 0 or an errno value. */
    public static final MethodHandle REQ_NOTIFY_CQ =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), CRITICAL);

    /** {@code struct ibv_mw *alloc_mw(struct ibv_pd *, enum ibv_mw_type)}: control path; NULL and errno on failure. */
    public static final MethodHandle ALLOC_MW =
            LINKER.downcallHandle(FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT), Linker.Option.captureCallState("errno"));

    /** {@code int dealloc_mw(struct ibv_mw *)}: control path; 0 or an errno value. */
    public static final MethodHandle DEALLOC_MW = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /**
     * {@code int bind_mw(struct ibv_qp *, struct ibv_mw *, struct ibv_mw_bind *)}: posts the bind of
     * a type 1 window (the driver makes it a work request of the QP); 0 or an errno value.
     */
    public static final MethodHandle BIND_MW =
            LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    private static final java.lang.invoke.VarHandle CAPTURED_ERRNO = Linker.Option.captureStateLayout()
            .varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));

    /**
     * The {@code errno} a call with a capture segment (as {@link #ALLOC_MW}'s) left there.
     *
     * @param capture the segment of {@link Linker.Option#captureStateLayout()} the call filled
     * @return the error number
     */
    public static int errno(MemorySegment capture) {
        return (int) CAPTURED_ERRNO.get(capture, 0L);
    }

    /**
     * Reads a function pointer of {@code struct ibv_context.ops}.
     *
     * @param context the {@code struct ibv_context *}, at least 328 bytes readable
     * @param opOffset one of the {@code Structs.CONTEXT_OPS_*} offsets
     * @return the function pointer; {@code NULL} when the driver does not implement the verb
     */
    public static MemorySegment op(MemorySegment context, long opOffset) {
        return context.get(ADDRESS, opOffset);
    }
}
