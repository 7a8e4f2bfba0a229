package dat.provider.verbs.internal.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The control-path entry points of {@code libibverbs.so.1} and {@code librdmacm.so.1}, as
 * downcall handles built once per load. The libraries are opened with
 * {@link SymbolLookup#libraryLookup(String, Arena)} in a shared {@link Arena}: {@link #close()}
 * closes it, which unloads the libraries and makes every handle of this instance refuse to call
 * (an {@link IllegalStateException}, never a call into unmapped code).
 *
 * <p>Every wrapper that can fail captures {@code errno} with {@link Linker.Option#captureCallState}
 * and throws {@link NativeException}; none ever dereferences a {@code NULL} it got back. The
 * {@code static inline} data-path verbs are not here: see {@link Inline}; nor is libc: {@link Libc}.
 *
 * <p>Thread safety: every method may be called from any thread; the C functions are thread safe.
 */
@SuppressWarnings("restricted") // this package is the one place that calls native code
public final class Verbs implements AutoCloseable {

    /** The library names (the runtime packages' sonames, as in the Debian packages). */
    public static final String LIBIBVERBS = "libibverbs.so.1";
    public static final String LIBRDMACM = "librdmacm.so.1";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle CAPTURED_ERRNO =
            CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));


    private final Arena arena;

    // libibverbs
    private final MethodHandle ibvGetDeviceList;
    private final MethodHandle ibvFreeDeviceList;
    private final MethodHandle ibvGetDeviceName;
    private final MethodHandle ibvOpenDevice;
    private final MethodHandle ibvCloseDevice;
    private final MethodHandle ibvQueryDevice;
    private final MethodHandle ibvQueryPort;
    private final MethodHandle ibvAllocPd;
    private final MethodHandle ibvDeallocPd;
    private final MethodHandle ibvRegMr;
    private final MethodHandle ibvDeregMr;
    private final MethodHandle ibvCreateCompChannel;
    private final MethodHandle ibvDestroyCompChannel;
    private final MethodHandle ibvCreateCq;
    private final MethodHandle ibvDestroyCq;
    private final MethodHandle ibvGetCqEvent;
    private final MethodHandle ibvAckCqEvents;
    private final MethodHandle ibvCreateQp;
    private final MethodHandle ibvModifyQp;
    private final MethodHandle ibvDestroyQp;
    private final MethodHandle ibvCreateSrq;
    private final MethodHandle ibvModifySrq;
    private final MethodHandle ibvDestroySrq;
    private final MethodHandle ibvGetAsyncEvent;
    private final MethodHandle ibvAckAsyncEvent;
    private final MethodHandle ibvWcStatusStr;
    private final MethodHandle ibvResizeCq;
    private final MethodHandle ibvQuerySrq;
    private final MethodHandle ibvQueryGid;
    // librdmacm
    private final MethodHandle rdmaCreateEventChannel;
    private final MethodHandle rdmaDestroyEventChannel;
    private final MethodHandle rdmaCreateId;
    private final MethodHandle rdmaDestroyId;
    private final MethodHandle rdmaBindAddr;
    private final MethodHandle rdmaListen;
    private final MethodHandle rdmaResolveAddr;
    private final MethodHandle rdmaResolveRoute;
    private final MethodHandle rdmaInitQpAttr;
    private final MethodHandle rdmaConnect;
    private final MethodHandle rdmaEstablish;
    private final MethodHandle rdmaAccept;
    private final MethodHandle rdmaReject;
    private final MethodHandle rdmaDisconnect;
    private final MethodHandle rdmaGetCmEvent;
    private final MethodHandle rdmaAckCmEvent;
    private final MethodHandle rdmaGetDevices;
    private final MethodHandle rdmaFreeDevices;
    private final MethodHandle rdmaEventStr;

    private Verbs(Arena arena, SymbolLookup ibv, SymbolLookup cm) {
        this.arena = arena;
        ibvGetDeviceList = bind(ibv, "ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        ibvFreeDeviceList = bind(ibv, "ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS), false);
        ibvGetDeviceName = bind(ibv, "ibv_get_device_name", FunctionDescriptor.of(ADDRESS, ADDRESS), false);
        ibvOpenDevice = bind(ibv, "ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        ibvCloseDevice = bind(ibv, "ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        ibvQueryDevice = bind(ibv, "ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), false);
        ibvQueryPort = bind(ibv, "ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS), false);
        ibvAllocPd = bind(ibv, "ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        ibvDeallocPd = bind(ibv, "ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        ibvRegMr = bind(ibv, "ibv_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT), true);
        ibvDeregMr = bind(ibv, "ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        ibvCreateCompChannel = bind(ibv, "ibv_create_comp_channel", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        ibvDestroyCompChannel = bind(ibv, "ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        ibvCreateCq = bind(ibv, "ibv_create_cq",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), true);
        ibvDestroyCq = bind(ibv, "ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        ibvGetCqEvent = bind(ibv, "ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), true);
        ibvAckCqEvents = bind(ibv, "ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT), false);
        ibvCreateQp = bind(ibv, "ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
        ibvModifyQp = bind(ibv, "ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), false);
        ibvDestroyQp = bind(ibv, "ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        ibvCreateSrq = bind(ibv, "ibv_create_srq", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
        ibvModifySrq = bind(ibv, "ibv_modify_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), false);
        ibvDestroySrq = bind(ibv, "ibv_destroy_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        ibvGetAsyncEvent = bind(ibv, "ibv_get_async_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), true);
        ibvAckAsyncEvent = bind(ibv, "ibv_ack_async_event", FunctionDescriptor.ofVoid(ADDRESS), false);
        ibvWcStatusStr = bind(ibv, "ibv_wc_status_str", FunctionDescriptor.of(ADDRESS, JAVA_INT), false);
        ibvResizeCq = bind(ibv, "ibv_resize_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), false);
        ibvQuerySrq = bind(ibv, "ibv_query_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), false);
        ibvQueryGid = bind(ibv, "ibv_query_gid", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS), false);

        rdmaCreateEventChannel = bind(cm, "rdma_create_event_channel", FunctionDescriptor.of(ADDRESS), true);
        rdmaDestroyEventChannel = bind(cm, "rdma_destroy_event_channel", FunctionDescriptor.ofVoid(ADDRESS), false);
        rdmaCreateId = bind(cm, "rdma_create_id", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT), true);
        rdmaDestroyId = bind(cm, "rdma_destroy_id", FunctionDescriptor.of(JAVA_INT, ADDRESS), true);
        rdmaBindAddr = bind(cm, "rdma_bind_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), true);
        rdmaListen = bind(cm, "rdma_listen", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), true);
        rdmaResolveAddr = bind(cm, "rdma_resolve_addr",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT), true);
        rdmaResolveRoute = bind(cm, "rdma_resolve_route", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), true);
        rdmaInitQpAttr = bind(cm, "rdma_init_qp_attr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), true);
        rdmaConnect = bind(cm, "rdma_connect", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), true);
        rdmaEstablish = bind(cm, "rdma_establish", FunctionDescriptor.of(JAVA_INT, ADDRESS), true);
        rdmaAccept = bind(cm, "rdma_accept", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), true);
        rdmaReject = bind(cm, "rdma_reject", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE), true);
        rdmaDisconnect = bind(cm, "rdma_disconnect", FunctionDescriptor.of(JAVA_INT, ADDRESS), true);
        rdmaGetCmEvent = bind(cm, "rdma_get_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), true);
        rdmaAckCmEvent = bind(cm, "rdma_ack_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        rdmaGetDevices = bind(cm, "rdma_get_devices", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        rdmaFreeDevices = bind(cm, "rdma_free_devices", FunctionDescriptor.ofVoid(ADDRESS), false);
        rdmaEventStr = bind(cm, "rdma_event_str", FunctionDescriptor.of(ADDRESS, JAVA_INT), false);

    }

    /**
     * Opens both libraries and binds every entry point.
     *
     * @return the bound libraries; close them when the provider stops
     * @throws IllegalArgumentException when a library cannot be opened (not installed)
     * @throws IllegalStateException when an entry point is missing (an incompatible version)
     */
    public static Verbs load() {
        return load(LIBIBVERBS, LIBRDMACM);
    }

    /**
     * Opens the two libraries by the given names (tests name missing ones).
     *
     * @param libibverbs the verbs library name or path
     * @param librdmacm the rdma_cm library name or path
     * @return the bound libraries
     */
    public static Verbs load(String libibverbs, String librdmacm) {
        Arena arena = Arena.ofShared();
        try {
            SymbolLookup ibv = SymbolLookup.libraryLookup(libibverbs, arena);
            SymbolLookup cm = SymbolLookup.libraryLookup(librdmacm, arena);
            return new Verbs(arena, ibv, cm);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    private static MemorySegment find(SymbolLookup lookup, String name) {
        return lookup.find(name).orElseThrow(() -> new IllegalStateException("symbol " + name + " not found"));
    }

    private static MethodHandle bind(SymbolLookup lookup, String name, FunctionDescriptor descriptor, boolean errno) {
        MemorySegment symbol = find(lookup, name);
        return errno ? LINKER.downcallHandle(symbol, descriptor, ERRNO) : LINKER.downcallHandle(symbol, descriptor);
    }

    /** Unloads the libraries; every handle of this instance refuses to call afterwards. */
    @Override
    public void close() {
        arena.close();
    }

    // ---- helpers -----------------------------------------------------------------------------------

    private static int errno(MemorySegment capture) {
        return (int) CAPTURED_ERRNO.get(capture, 0L);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException e) {
            return e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    private static MemorySegment nonNull(String function, MemorySegment result, MemorySegment capture) {
        if (result.equals(MemorySegment.NULL)) {
            throw new NativeException(function, errno(capture));
        }
        return result;
    }

    private static void zeroOrErrno(String function, int result, MemorySegment capture) {
        if (result != 0) {
            throw new NativeException(function, errno(capture));
        }
    }

    private static void zeroOrPositive(String function, int result) {
        if (result != 0) {
            throw new NativeException(function, Math.abs(result));
        }
    }

    /** Reads a C string that native code returned, checking for {@code NULL} first. */
    public static String string(MemorySegment cString) {
        if (cString.equals(MemorySegment.NULL)) {
            return "";
        }
        return cString.reinterpret(4096).getString(0);
    }

    // ---- devices -----------------------------------------------------------------------------------

    /**
     * {@code ibv_get_device_list}: the device pointers. Throws with {@code errno} when the list
     * is {@code NULL} (ENOSYS on a kernel without RDMA).
     *
     * @param arena where the returned array lives
     * @return the {@code struct ibv_device *} of each device; empty when none
     */
    public MemorySegment[] deviceList(Arena arena) {
        MemorySegment capture = arena.allocate(CAPTURE);
        MemorySegment count = arena.allocate(JAVA_INT);
        MemorySegment list;
        try {
            list = (MemorySegment) ibvGetDeviceList.invokeExact(capture, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        nonNull("ibv_get_device_list", list, capture);
        try {
            int n = count.get(JAVA_INT, 0);
            MemorySegment entries = list.reinterpret(ADDRESS.byteSize() * (n + 1L));
            MemorySegment[] devices = new MemorySegment[n];
            for (int i = 0; i < n; i++) {
                devices[i] = entries.getAtIndex(ADDRESS, i);
            }
            return devices;
        } finally {
            try {
                ibvFreeDeviceList.invokeExact(list);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }
    }

    /** {@code ibv_get_device_name}. */
    public String deviceName(MemorySegment device) {
        try {
            return string((MemorySegment) ibvGetDeviceName.invokeExact(device));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_open_device}: the {@code struct ibv_context *}, 328 bytes readable. */
    public MemorySegment openDevice(MemorySegment device) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            MemorySegment context = (MemorySegment) ibvOpenDevice.invokeExact(capture, device);
            return nonNull("ibv_open_device", context, capture).reinterpret(Structs.IBV_CONTEXT.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_close_device}. */
    public void closeDevice(MemorySegment context) {
        try {
            zeroOrPositive("ibv_close_device", (int) ibvCloseDevice.invokeExact(context));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_query_device} into a {@link Structs#IBV_DEVICE_ATTR} segment. */
    public void queryDevice(MemorySegment context, MemorySegment deviceAttr) {
        try {
            zeroOrPositive("ibv_query_device", (int) ibvQueryDevice.invokeExact(context, deviceAttr));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * The exported (compat) {@code ibv_query_port}, which fills the first 48 bytes of the
     * {@link Structs#IBV_PORT_ATTR} segment; the segment is zeroed first.
     */
    public void queryPort(MemorySegment context, int port, MemorySegment portAttr) {
        portAttr.fill((byte) 0);
        try {
            zeroOrPositive("ibv_query_port", (int) ibvQueryPort.invokeExact(context, (byte) port, portAttr));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_get_devices}: librdmacm's own device contexts; free with {@link #freeRdmaDevices}. */
    public MemorySegment rdmaDevices(Arena arena, int[] countOut) {
        MemorySegment capture = arena.allocate(CAPTURE);
        MemorySegment count = arena.allocate(JAVA_INT);
        MemorySegment list;
        try {
            list = (MemorySegment) rdmaGetDevices.invokeExact(capture, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        nonNull("rdma_get_devices", list, capture);
        countOut[0] = count.get(JAVA_INT, 0);
        return list.reinterpret(ADDRESS.byteSize() * (countOut[0] + 1L));
    }

    /** {@code rdma_free_devices}. */
    public void freeRdmaDevices(MemorySegment list) {
        try {
            rdmaFreeDevices.invokeExact(list);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- protection domains, memory ----------------------------------------------------------------

    /** {@code ibv_alloc_pd}. */
    public MemorySegment allocPd(MemorySegment context) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            return nonNull("ibv_alloc_pd", (MemorySegment) ibvAllocPd.invokeExact(capture, context), capture)
                    .reinterpret(Structs.IBV_PD.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_dealloc_pd}. */
    public void deallocPd(MemorySegment pd) {
        try {
            zeroOrPositive("ibv_dealloc_pd", (int) ibvDeallocPd.invokeExact(pd));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_reg_mr}: the {@code struct ibv_mr *}, 48 bytes readable. */
    public MemorySegment regMr(MemorySegment pd, MemorySegment memory, long length, int access) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            MemorySegment mr = (MemorySegment) ibvRegMr.invokeExact(capture, pd, memory, length, access);
            return nonNull("ibv_reg_mr", mr, capture).reinterpret(Structs.IBV_MR.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_dereg_mr}. */
    public void deregMr(MemorySegment mr) {
        try {
            zeroOrPositive("ibv_dereg_mr", (int) ibvDeregMr.invokeExact(mr));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- completion queues -------------------------------------------------------------------------

    /** {@code ibv_create_comp_channel}. */
    public MemorySegment createCompChannel(MemorySegment context) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            return nonNull("ibv_create_comp_channel", (MemorySegment) ibvCreateCompChannel.invokeExact(capture, context),
                    capture).reinterpret(Structs.IBV_COMP_CHANNEL.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_destroy_comp_channel}. */
    public void destroyCompChannel(MemorySegment channel) {
        try {
            zeroOrPositive("ibv_destroy_comp_channel", (int) ibvDestroyCompChannel.invokeExact(channel));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_create_cq}; {@code cqContext} is a token the completion events carry back. */
    public MemorySegment createCq(MemorySegment context, int cqe, long cqContext, MemorySegment channel) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            MemorySegment cq = (MemorySegment) ibvCreateCq.invokeExact(capture, context, cqe,
                    MemorySegment.ofAddress(cqContext), channel, 0);
            return nonNull("ibv_create_cq", cq, capture).reinterpret(Structs.IBV_CQ.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_destroy_cq}. */
    public void destroyCq(MemorySegment cq) {
        try {
            zeroOrPositive("ibv_destroy_cq", (int) ibvDestroyCq.invokeExact(cq));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code ibv_get_cq_event} on a non-blocking channel.
     *
     * @param out two pointers: the CQ and its context are written there
     * @return {@code true} when an event was taken, {@code false} when none was pending
     */
    public boolean getCqEvent(MemorySegment channel, MemorySegment out, MemorySegment capture) {
        int result;
        try {
            result = (int) ibvGetCqEvent.invokeExact(capture, channel, out, out.asSlice(ADDRESS.byteSize()));
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (result == 0) {
            return true;
        }
        int errno = errno(capture);
        if (errno == Errno.EAGAIN || errno == Errno.EINTR) {
            return false;
        }
        throw new NativeException("ibv_get_cq_event", errno);
    }

    /** {@code ibv_ack_cq_events}. */
    public void ackCqEvents(MemorySegment cq, int count) {
        try {
            ibvAckCqEvents.invokeExact(cq, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code ibv_resize_cq}: the CQ then holds at least {@code cqe} entries ({@code cq->cqe} says
     * how many).
     */
    public void resizeCq(MemorySegment cq, int cqe) {
        try {
            zeroOrPositive("ibv_resize_cq", (int) ibvResizeCq.invokeExact(cq, cqe));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_query_gid}: the 16-byte GID at {@code index} of the port's table into {@code gid}. */
    public void queryGid(MemorySegment context, int port, int index, MemorySegment gid) {
        try {
            zeroOrPositive("ibv_query_gid", (int) ibvQueryGid.invokeExact(context, (byte) port, index, gid));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- queue pairs, shared receive queues --------------------------------------------------------

    /** {@code ibv_create_qp}: the {@code struct ibv_qp *}, 160 bytes readable. */
    public MemorySegment createQp(MemorySegment pd, MemorySegment initAttr) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            return nonNull("ibv_create_qp", (MemorySegment) ibvCreateQp.invokeExact(capture, pd, initAttr), capture)
                    .reinterpret(Structs.IBV_QP.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_modify_qp}. */
    public void modifyQp(MemorySegment qp, MemorySegment attr, int mask) {
        try {
            zeroOrPositive("ibv_modify_qp", (int) ibvModifyQp.invokeExact(qp, attr, mask));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_destroy_qp}. */
    public void destroyQp(MemorySegment qp) {
        try {
            zeroOrPositive("ibv_destroy_qp", (int) ibvDestroyQp.invokeExact(qp));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_create_srq}: the {@code struct ibv_srq *}, 128 bytes readable. */
    public MemorySegment createSrq(MemorySegment pd, MemorySegment initAttr) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            return nonNull("ibv_create_srq", (MemorySegment) ibvCreateSrq.invokeExact(capture, pd, initAttr), capture)
                    .reinterpret(Structs.IBV_SRQ.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_query_srq}: the SRQ's {@code max_wr}, {@code max_sge} and limit into {@code attr}. */
    public void querySrq(MemorySegment srq, MemorySegment attr) {
        try {
            zeroOrPositive("ibv_query_srq", (int) ibvQuerySrq.invokeExact(srq, attr));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_modify_srq}. */
    public void modifySrq(MemorySegment srq, MemorySegment attr, int mask) {
        try {
            zeroOrPositive("ibv_modify_srq", (int) ibvModifySrq.invokeExact(srq, attr, mask));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_destroy_srq}. */
    public void destroySrq(MemorySegment srq) {
        try {
            zeroOrPositive("ibv_destroy_srq", (int) ibvDestroySrq.invokeExact(srq));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- async events ------------------------------------------------------------------------------

    /** {@code ibv_get_async_event} on a non-blocking async fd: {@code false} when none was pending. */
    public boolean getAsyncEvent(MemorySegment context, MemorySegment event, MemorySegment capture) {
        int result;
        try {
            result = (int) ibvGetAsyncEvent.invokeExact(capture, context, event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (result == 0) {
            return true;
        }
        int errno = errno(capture);
        if (errno == Errno.EAGAIN || errno == Errno.EINTR) {
            return false;
        }
        throw new NativeException("ibv_get_async_event", errno);
    }

    /** {@code ibv_ack_async_event}. */
    public void ackAsyncEvent(MemorySegment event) {
        try {
            ibvAckAsyncEvent.invokeExact(event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_wc_status_str}. */
    public String wcStatusString(int status) {
        try {
            return string((MemorySegment) ibvWcStatusStr.invokeExact(status));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- rdma_cm -----------------------------------------------------------------------------------

    /** {@code rdma_create_event_channel}: the channel, 4 bytes readable (its fd). */
    public MemorySegment createEventChannel() {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            return nonNull("rdma_create_event_channel", (MemorySegment) rdmaCreateEventChannel.invokeExact(capture), capture)
                    .reinterpret(Structs.RDMA_EVENT_CHANNEL.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_destroy_event_channel}. */
    public void destroyEventChannel(MemorySegment channel) {
        try {
            rdmaDestroyEventChannel.invokeExact(channel);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code rdma_create_id} with {@code RDMA_PS_TCP}.
     *
     * @param channel the event channel, or {@code NULL} for a synchronous id
     * @param context the token stored in {@code id->context}
     * @return the {@code struct rdma_cm_id *}, 416 bytes readable
     */
    public MemorySegment createId(MemorySegment channel, long context) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            MemorySegment idOut = local.allocate(ADDRESS);
            int result = (int) rdmaCreateId.invokeExact(capture, channel, idOut, MemorySegment.ofAddress(context),
                    RDMA_PS_TCP);
            zeroOrErrno("rdma_create_id", result, capture);
            return idOut.get(ADDRESS, 0).reinterpret(Structs.RDMA_CM_ID.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The port space of reliable connections, {@code RDMA_PS_TCP}. */
    public static final int RDMA_PS_TCP = 0x0106;

    /** {@code rdma_destroy_id}; blocks until the id's reported events are acknowledged. */
    public void destroyId(MemorySegment id) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            zeroOrErrno("rdma_destroy_id", (int) rdmaDestroyId.invokeExact(capture, id), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_bind_addr}. */
    public void bindAddr(MemorySegment id, MemorySegment sockaddr) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            zeroOrErrno("rdma_bind_addr", (int) rdmaBindAddr.invokeExact(capture, id, sockaddr), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_listen}. */
    public void listen(MemorySegment id, int backlog) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            zeroOrErrno("rdma_listen", (int) rdmaListen.invokeExact(capture, id, backlog), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_resolve_addr}. */
    public void resolveAddr(MemorySegment id, MemorySegment src, MemorySegment dst, int timeoutMs) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            zeroOrErrno("rdma_resolve_addr", (int) rdmaResolveAddr.invokeExact(capture, id, src, dst, timeoutMs), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_resolve_route}. */
    public void resolveRoute(MemorySegment id, int timeoutMs) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            zeroOrErrno("rdma_resolve_route", (int) rdmaResolveRoute.invokeExact(capture, id, timeoutMs), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code rdma_init_qp_attr}: fills {@code attr} for the state already written in its
     * {@code qp_state}.
     *
     * @return the {@code ibv_qp_attr_mask} to pass to {@link #modifyQp}
     */
    public int initQpAttr(MemorySegment id, MemorySegment attr) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            MemorySegment mask = local.allocate(JAVA_INT);
            zeroOrErrno("rdma_init_qp_attr", (int) rdmaInitQpAttr.invokeExact(capture, id, attr, mask), capture);
            return mask.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_connect}. */
    public void connect(MemorySegment id, MemorySegment connParam) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            zeroOrErrno("rdma_connect", (int) rdmaConnect.invokeExact(capture, id, connParam), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_establish}: the active side's ready-to-use after it moved its QP to RTS itself. */
    public void establish(MemorySegment id) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            zeroOrErrno("rdma_establish", (int) rdmaEstablish.invokeExact(capture, id), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_accept}. */
    public void accept(MemorySegment id, MemorySegment connParam) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            zeroOrErrno("rdma_accept", (int) rdmaAccept.invokeExact(capture, id, connParam), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_reject}. */
    public void reject(MemorySegment id, MemorySegment privateData, int length) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            zeroOrErrno("rdma_reject", (int) rdmaReject.invokeExact(capture, id, privateData, (byte) length), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_disconnect}. */
    public void disconnect(MemorySegment id) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            zeroOrErrno("rdma_disconnect", (int) rdmaDisconnect.invokeExact(capture, id), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code rdma_get_cm_event} on a non-blocking channel.
     *
     * @return the event (80 bytes readable), or {@code NULL} when none was pending
     */
    public MemorySegment getCmEvent(MemorySegment channel, MemorySegment eventOut, MemorySegment capture) {
        int result;
        try {
            result = (int) rdmaGetCmEvent.invokeExact(capture, channel, eventOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (result == 0) {
            return eventOut.get(ADDRESS, 0).reinterpret(Structs.RDMA_CM_EVENT.byteSize());
        }
        int errno = errno(capture);
        if (errno == Errno.EAGAIN || errno == Errno.EINTR) {
            return MemorySegment.NULL;
        }
        throw new NativeException("rdma_get_cm_event", errno);
    }

    /** {@code rdma_ack_cm_event}. */
    public void ackCmEvent(MemorySegment event) {
        try {
            zeroOrPositive("rdma_ack_cm_event", (int) rdmaAckCmEvent.invokeExact(event));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code rdma_event_str}. */
    public String eventString(int event) {
        try {
            return string((MemorySegment) rdmaEventStr.invokeExact(event));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
