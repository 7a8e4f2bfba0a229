package dat.provider.ofi.internal.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

/**
 * libfabric's {@code static inline} calls, made as its headers make them: through the function
 * pointers of an object's ops tables ({@code fi_close(fid)} is {@code fid->ops->close(fid)},
 * {@code fi_sendmsg(ep, ...)} is {@code ep->msg->sendmsg(ep, ...)}, {@code fi_cq_read(cq, ...)} is
 * {@code cq->ops->read(cq, ...)}). The downcall handles are address-less, one per C signature, built
 * once: the function pointer is their first argument. A table whose {@code size} does not reach a
 * member is treated as the header's {@code FI_CHECK_OP} does: the call is not implemented
 * ({@code FI_ENOSYS}).
 *
 * <p><b>Control path</b> ({@code fi_domain}, {@code fi_endpoint}, {@code fi_connect}, ...): the
 * wrappers take {@link MemorySegment}s and throw {@link NativeException} with the negated return
 * value. <b>Data path</b> ({@link #XFER}, {@link #CQ_READ}, the atomics): the handles take the
 * object and struct pointers as {@code long}s (on x86-64 and AArch64 a pointer argument and a
 * 64-bit integer travel in the same register), so that a post or a poll creates no
 * {@link MemorySegment}; the callers cache each function pointer per object. These calls do I/O
 * (tcp sends and receives in them), so none is {@code Linker.Option.critical}.
 */
@SuppressWarnings("restricted") // this package is the one place that calls native code
public final class Ops {

    private Ops() {
    }

    private static final Linker LINKER = Linker.nativeLinker();

    private static MethodHandle handle(FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor);
    }

    // control-path shapes
    private static final MethodHandle INT_P = handle(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle INT_P_L = handle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle INT_P_P_L = handle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle INT_P_I_P = handle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    private static final MethodHandle INT_P_P_P = handle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle INT_P_P_P_P = handle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle INT_P_P_P_L = handle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle INT_P_P_I = handle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle INT_P_I_I_P_P = handle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle INT_P_I_I_P_L = handle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle MR_REG = handle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG,
            JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS));
    private static final MethodHandle LONG_P_P_P_L_L = handle(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, ADDRESS,
            JAVA_LONG, JAVA_LONG));
    private static final MethodHandle LONG_P_P_L = handle(FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));

    // ---- data path -------------------------------------------------------------------------------

    /**
     * {@code ssize_t (*)(struct fid_ep *, const struct fi_msg[_rma] *, uint64_t flags)}:
     * {@code recvmsg}, {@code sendmsg}, {@code readmsg}, {@code writemsg}. Called as
     * {@code (fn, ep, msg, flags)}; returns 0 or a negated {@code FI_E*}.
     */
    public static final MethodHandle XFER = handle(FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));

    /**
     * {@code ssize_t (*inject)(struct fid_ep *, const void *buf, size_t len, fi_addr_t dest_addr)}:
     * as {@code (fn, ep, buf, len, dest_addr)}; returns 0 or a negated {@code FI_E*}.
     */
    public static final MethodHandle INJECT = handle(FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));

    /** {@code ssize_t (*read)(struct fid_cq *, void *buf, size_t count)}: as {@code (fn, cq, buf, count)}. */
    public static final MethodHandle CQ_READ = handle(FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));

    /**
     * {@code readwritemsg(ep, msg, resultv, result_desc, result_count, flags)}: a fetching atomic
     * ({@code fi_fetch_atomicmsg}), as {@code (fn, ep, msg, resultv, result_desc, result_count, flags)}.
     */
    public static final MethodHandle READWRITEMSG = handle(FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
            JAVA_LONG, JAVA_LONG, JAVA_LONG));

    /**
     * {@code compwritemsg(ep, msg, comparev, compare_desc, compare_count, resultv, result_desc,
     * result_count, flags)}: compare-and-swap ({@code fi_compare_atomicmsg}), the function pointer first.
     */
    public static final MethodHandle COMPWRITEMSG = handle(FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
            JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));

    // ---- function pointers -----------------------------------------------------------------------

    /**
     * Reads a function pointer of an object's ops table: {@code obj->(table)->member}.
     *
     * @param object the object, at least {@code tableOffset + 8} bytes readable
     * @param tableOffset where the object keeps the table's pointer ({@link Structs#FID_OPS},
     *     {@link Structs#OBJ_OPS}, {@link Structs#EP_MSG}, ...)
     * @param table the table's layout
     * @param member the member's offset in the table
     * @param name the C call, for the exception
     * @return the function pointer
     * @throws NativeException {@code FI_ENOSYS} when the table is missing, too short for the
     *     member, or the pointer is {@code NULL}
     */
    public static MemorySegment fn(MemorySegment object, long tableOffset, StructLayout table, long member, String name) {
        MemorySegment tablePointer = object.get(ADDRESS, tableOffset);
        if (tablePointer.equals(MemorySegment.NULL)) {
            throw new NativeException(name, Fi.ENOSYS);
        }
        MemorySegment ops = tablePointer.reinterpret(table.byteSize());
        if (ops.get(JAVA_LONG, 0) < member + ADDRESS.byteSize()) {
            throw new NativeException(name, Fi.ENOSYS);
        }
        MemorySegment function = ops.get(ADDRESS, member);
        if (function.equals(MemorySegment.NULL)) {
            throw new NativeException(name, Fi.ENOSYS);
        }
        return function;
    }

    /** Whether an ops table has a non-{@code NULL} member (the header's {@code FI_CHECK_OP}). */
    public static boolean has(MemorySegment object, long tableOffset, StructLayout table, long member) {
        try {
            fn(object, tableOffset, table, member, "");
            return true;
        } catch (NativeException e) {
            return false;
        }
    }

    /** A native object pointer returned through an out-parameter, sized to its struct. */
    private static MemorySegment out(MemorySegment slot, StructLayout layout) {
        return slot.get(ADDRESS, 0).reinterpret(layout.byteSize());
    }

    private static void check(String function, int result) {
        if (result != 0) {
            throw new NativeException(function, -result);
        }
    }

    // ---- fid -------------------------------------------------------------------------------------

    /** {@code fi_close(fid)}. */
    public static void close(MemorySegment fid) {
        MemorySegment fn = fn(fid, Structs.FID_OPS, Structs.FI_OPS, Structs.OPS_CLOSE, "fi_close");
        try {
            check("fi_close", (int) INT_P.invokeExact(fn, fid));
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    /** {@code fi_ep_bind}, {@code fi_pep_bind}: {@code fid->ops->bind(fid, bfid, flags)}. */
    public static void bind(MemorySegment fid, MemorySegment boundFid, long flags) {
        MemorySegment fn = fn(fid, Structs.FID_OPS, Structs.FI_OPS, Structs.OPS_BIND, "fi_ep_bind");
        try {
            check("fi_ep_bind", (int) INT_P_P_L.invokeExact(fn, fid, boundFid, flags));
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    /** {@code fi_control(fid, command, arg)}. */
    public static void control(MemorySegment fid, int command, MemorySegment arg) {
        MemorySegment fn = fn(fid, Structs.FID_OPS, Structs.FI_OPS, Structs.OPS_CONTROL, "fi_control");
        try {
            check("fi_control", (int) INT_P_I_P.invokeExact(fn, fid, command, arg));
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    /** {@code fi_enable(ep)}. */
    public static void enable(MemorySegment ep) {
        control(ep, Fi.ENABLE, MemorySegment.NULL);
    }

    /** {@code fi_control(fid, FI_GETWAIT, &fd)}: the file descriptor of an {@code FI_WAIT_FD} object. */
    public static int waitFd(MemorySegment fid) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment fd = local.allocate(JAVA_INT);
            control(fid, Fi.GETWAIT, fd);
            return fd.get(JAVA_INT, 0);
        }
    }

    // ---- fabric ----------------------------------------------------------------------------------

    private static MemorySegment open(MemorySegment parent, long member, StructLayout table, String name, MemorySegment arg,
            StructLayout result) {
        MemorySegment fn = fn(parent, Structs.OBJ_OPS, table, member, name);
        try (Arena local = Arena.ofConfined()) {
            MemorySegment slot = local.allocate(ADDRESS);
            check(name, (int) INT_P_P_P_P.invokeExact(fn, parent, arg, slot, MemorySegment.NULL));
            return out(slot, result);
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    /** {@code fi_domain(fabric, info, &domain, NULL)}. */
    public static MemorySegment domain(MemorySegment fabric, MemorySegment info) {
        return open(fabric, Structs.FABRIC_OPS_DOMAIN, Structs.FI_OPS_FABRIC, "fi_domain", info, Structs.FID_DOMAIN);
    }

    /** {@code fi_passive_ep(fabric, info, &pep, NULL)}. */
    public static MemorySegment passiveEp(MemorySegment fabric, MemorySegment info) {
        return open(fabric, Structs.FABRIC_OPS_PASSIVE_EP, Structs.FI_OPS_FABRIC, "fi_passive_ep", info, Structs.FID_PEP);
    }

    /** {@code fi_eq_open(fabric, attr, &eq, NULL)}. */
    public static MemorySegment eqOpen(MemorySegment fabric, MemorySegment attr) {
        return open(fabric, Structs.FABRIC_OPS_EQ_OPEN, Structs.FI_OPS_FABRIC, "fi_eq_open", attr, Structs.FID_EQ);
    }

    /** {@code fi_trywait(fabric, fids, count)}: 0 when the caller may block on the wait objects. */
    public static int trywait(MemorySegment fabric, MemorySegment fids, int count) {
        MemorySegment fn = fn(fabric, Structs.OBJ_OPS, Structs.FI_OPS_FABRIC, Structs.FABRIC_OPS_TRYWAIT, "fi_trywait");
        try {
            return (int) INT_P_P_I.invokeExact(fn, fabric, fids, count);
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    // ---- domain ----------------------------------------------------------------------------------

    /** {@code fi_cq_open(domain, attr, &cq, NULL)}. */
    public static MemorySegment cqOpen(MemorySegment domain, MemorySegment attr) {
        return open(domain, Structs.DOMAIN_OPS_CQ_OPEN, Structs.FI_OPS_DOMAIN, "fi_cq_open", attr, Structs.FID_CQ);
    }

    /** {@code fi_endpoint(domain, info, &ep, NULL)}. */
    public static MemorySegment endpoint(MemorySegment domain, MemorySegment info) {
        return open(domain, Structs.DOMAIN_OPS_ENDPOINT, Structs.FI_OPS_DOMAIN, "fi_endpoint", info, Structs.FID_EP);
    }

    /** {@code fi_srx_context(domain, attr, &rx_ep, NULL)}. */
    public static MemorySegment srxContext(MemorySegment domain, MemorySegment rxAttr) {
        return open(domain, Structs.DOMAIN_OPS_SRX_CTX, Structs.FI_OPS_DOMAIN, "fi_srx_context", rxAttr, Structs.FID_EP);
    }

    /**
     * {@code fi_query_atomic(domain, datatype, op, &attr, flags)}.
     *
     * @return whether the provider offers the operation on the datatype
     */
    public static boolean queryAtomic(MemorySegment domain, int datatype, int op, long flags) {
        if (!has(domain, Structs.OBJ_OPS, Structs.FI_OPS_DOMAIN, Structs.DOMAIN_OPS_QUERY_ATOMIC)) {
            return false;
        }
        MemorySegment fn = fn(domain, Structs.OBJ_OPS, Structs.FI_OPS_DOMAIN, Structs.DOMAIN_OPS_QUERY_ATOMIC, "fi_query_atomic");
        try (Arena local = Arena.ofConfined()) {
            MemorySegment attr = local.allocate(Structs.FI_ATOMIC_ATTR);
            int result = (int) INT_P_I_I_P_L.invokeExact(fn, domain, datatype, op, attr, flags);
            return result == 0 && attr.get(JAVA_LONG, 0) >= 1;
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    /**
     * {@code fi_mr_reg(domain, buf, len, access, 0, requested_key, 0, &mr, NULL)}.
     *
     * @return the {@code struct fid_mr *}
     */
    public static MemorySegment mrReg(MemorySegment domain, MemorySegment buffer, long length, long access, long requestedKey) {
        MemorySegment fn = fn(domain, Structs.DOMAIN_MR, Structs.FI_OPS_MR, Structs.MR_OPS_REG, "fi_mr_reg");
        try (Arena local = Arena.ofConfined()) {
            MemorySegment slot = local.allocate(ADDRESS);
            check("fi_mr_reg", (int) MR_REG.invokeExact(fn, domain, buffer, length, access, 0L, requestedKey, 0L, slot,
                    MemorySegment.NULL));
            return out(slot, Structs.FID_MR);
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    // ---- endpoints and connection management ------------------------------------------------------

    /** {@code fi_getopt(fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_SIZE, ...)}: the most private data a CM message carries. */
    public static long cmDataSize(MemorySegment endpoint) {
        MemorySegment fn = fn(endpoint, Structs.OBJ_OPS, Structs.FI_OPS_EP, Structs.EP_OPS_GETOPT, "fi_getopt");
        try (Arena local = Arena.ofConfined()) {
            MemorySegment value = local.allocate(JAVA_LONG);
            MemorySegment length = local.allocate(JAVA_LONG);
            length.set(JAVA_LONG, 0, 8L);
            check("fi_getopt", (int) INT_P_I_I_P_P.invokeExact(fn, endpoint, Fi.OPT_ENDPOINT, Fi.OPT_CM_DATA_SIZE, value, length));
            return value.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    private static void name(MemorySegment endpoint, long cmOffset, long member, String function, MemorySegment address) {
        MemorySegment fn = fn(endpoint, cmOffset, Structs.FI_OPS_CM, member, function);
        try (Arena local = Arena.ofConfined()) {
            MemorySegment length = local.allocate(JAVA_LONG);
            length.set(JAVA_LONG, 0, address.byteSize());
            check(function, (int) INT_P_P_P.invokeExact(fn, endpoint, address, length));
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    /** {@code fi_getname(fid, addr, &len)} of an endpoint; {@code address} is filled. */
    public static void getName(MemorySegment endpoint, MemorySegment address) {
        name(endpoint, Structs.EP_CM, Structs.CM_OPS_GETNAME, "fi_getname", address);
    }

    /** {@code fi_getname} of a passive endpoint. */
    public static void getPepName(MemorySegment pep, MemorySegment address) {
        name(pep, Structs.PEP_CM, Structs.CM_OPS_GETNAME, "fi_getname", address);
    }

    /** {@code fi_getpeer(ep, addr, &len)}. */
    public static void getPeer(MemorySegment endpoint, MemorySegment address) {
        name(endpoint, Structs.EP_CM, Structs.CM_OPS_GETPEER, "fi_getpeer", address);
    }

    /** {@code fi_connect(ep, addr, param, paramlen)}. */
    public static void connect(MemorySegment endpoint, MemorySegment address, MemorySegment param, long length) {
        MemorySegment fn = fn(endpoint, Structs.EP_CM, Structs.FI_OPS_CM, Structs.CM_OPS_CONNECT, "fi_connect");
        try {
            check("fi_connect", (int) INT_P_P_P_L.invokeExact(fn, endpoint, address, param, length));
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    /** {@code fi_listen(pep)}. */
    public static void listen(MemorySegment pep) {
        MemorySegment fn = fn(pep, Structs.PEP_CM, Structs.FI_OPS_CM, Structs.CM_OPS_LISTEN, "fi_listen");
        try {
            check("fi_listen", (int) INT_P.invokeExact(fn, pep));
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    /** {@code fi_accept(ep, param, paramlen)}. */
    public static void accept(MemorySegment endpoint, MemorySegment param, long length) {
        MemorySegment fn = fn(endpoint, Structs.EP_CM, Structs.FI_OPS_CM, Structs.CM_OPS_ACCEPT, "fi_accept");
        try {
            check("fi_accept", (int) INT_P_P_L.invokeExact(fn, endpoint, param, length));
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    /** {@code fi_reject(pep, handle, param, paramlen)}. */
    public static void reject(MemorySegment pep, MemorySegment handle, MemorySegment param, long length) {
        MemorySegment fn = fn(pep, Structs.PEP_CM, Structs.FI_OPS_CM, Structs.CM_OPS_REJECT, "fi_reject");
        try {
            check("fi_reject", (int) INT_P_P_P_L.invokeExact(fn, pep, handle, param, length));
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    /** {@code fi_shutdown(ep, 0)}. */
    public static void shutdown(MemorySegment endpoint) {
        MemorySegment fn = fn(endpoint, Structs.EP_CM, Structs.FI_OPS_CM, Structs.CM_OPS_SHUTDOWN, "fi_shutdown");
        try {
            check("fi_shutdown", (int) INT_P_L.invokeExact(fn, endpoint, 0L));
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    // ---- event queues ----------------------------------------------------------------------------

    /**
     * {@code fi_eq_read(eq, &event, buf, len, 0)}.
     *
     * @return the bytes read, {@code -FI_EAGAIN} when the queue is empty, {@code -FI_EAVAIL} when
     *     an error entry is at its head
     */
    public static long eqRead(MemorySegment eqReadFn, MemorySegment eq, MemorySegment event, MemorySegment buffer) {
        try {
            return (long) LONG_P_P_P_L_L.invokeExact(eqReadFn, eq, event, buffer, buffer.byteSize(), 0L);
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    /**
     * {@code fi_eq_readerr(eq, &entry, 0)}: the bytes read, or a negated error. The entry is zeroed
     * first: libfabric copies the error data into {@code entry.err_data} when the caller's
     * {@code err_data_size} is not 0, and a reused entry would name the previous read's buffer.
     */
    public static long eqReadErr(MemorySegment eqReadErrFn, MemorySegment eq, MemorySegment entry) {
        entry.fill((byte) 0);
        try {
            return (long) LONG_P_P_L.invokeExact(eqReadErrFn, eq, entry, 0L);
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }

    /** {@code fi_cq_readerr(cq, &entry, 0)}: 1 when an entry was read, or a negated error; the entry is zeroed first (as above). */
    public static long cqReadErr(MemorySegment cqReadErrFn, MemorySegment cq, MemorySegment entry) {
        entry.fill((byte) 0);
        try {
            return (long) LONG_P_P_L.invokeExact(cqReadErrFn, cq, entry, 0L);
        } catch (Throwable t) {
            throw Fabric.rethrow(t);
        }
    }
}
