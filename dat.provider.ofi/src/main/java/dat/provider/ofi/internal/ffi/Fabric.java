package dat.provider.ofi.internal.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

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
 * The exported entry points of {@code libfabric.so.1} ({@code fi_getinfo}, {@code fi_freeinfo},
 * {@code fi_dupinfo}, {@code fi_fabric}, {@code fi_strerror}, {@code fi_version}) and the libc
 * calls of the provider's event thread ({@code poll}, {@code eventfd}, {@code read},
 * {@code write}, {@code close}), as downcall handles built once per load. The library is opened
 * with {@link SymbolLookup#libraryLookup(String, Arena)} in a shared {@link Arena}: {@link #close()}
 * closes it, which unloads the library and makes every handle of this instance refuse to call (an
 * {@link IllegalStateException}, never a call into unmapped code).
 *
 * <p>Everything else libfabric offers is a {@code static inline} function of its headers that
 * calls through an object's ops table: see {@link Ops}. Those pointers belong to the library loaded
 * here, and the provider closes every object it made before it closes this.
 *
 * <p><b>Signals.</b> Loading libfabric, and its first {@code fi_getinfo} (which loads the
 * provider plugins), runs native constructors that may install signal handlers; the JVM depends on
 * its own. Both are guarded: every signal's disposition is saved before and restored after, and
 * the psm2/infinipath backtrace handlers Debian's libfabric pulls in are switched off by their
 * environment variables.
 *
 * <p>Thread safety: every method may be called from any thread.
 */
@SuppressWarnings("restricted") // this package is the one place that calls native code
public final class Fabric implements AutoCloseable {

    /** The library name: the soname of Debian's {@code libfabric1}. */
    public static final String LIBFABRIC = "libfabric.so.1";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle CAPTURED_ERRNO =
            CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final int EFD_NONBLOCK = 04000;
    private static final int EFD_CLOEXEC = 02000000;

    /** The signals whose dispositions the guard keeps (1..31; SIGKILL and SIGSTOP cannot change). */
    private static final int LAST_SIGNAL = 31;
    private static final MethodHandle SIGACTION = LINKER.downcallHandle(LINKER.defaultLookup().find("sigaction").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SETENV = LINKER.downcallHandle(LINKER.defaultLookup().find("setenv").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));

    private final Arena arena;
    private final MethodHandle fiGetinfo;
    private final MethodHandle fiFreeinfo;
    private final MethodHandle fiDupinfo;
    private final MethodHandle fiFabric;
    private final MethodHandle fiStrerror;
    private final MethodHandle fiVersion;
    private final MethodHandle poll;
    private final MethodHandle eventfd;
    private final MethodHandle write;
    private final MethodHandle read;
    private final MethodHandle close;

    private Fabric(Arena arena, SymbolLookup lib) {
        this.arena = arena;
        SymbolLookup libc = LINKER.defaultLookup();
        fiGetinfo = bind(lib, "fi_getinfo",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), false);
        fiFreeinfo = bind(lib, "fi_freeinfo", FunctionDescriptor.ofVoid(ADDRESS), false);
        fiDupinfo = bind(lib, "fi_dupinfo", FunctionDescriptor.of(ADDRESS, ADDRESS), false);
        fiFabric = bind(lib, "fi_fabric", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), false);
        fiStrerror = bind(lib, "fi_strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT), false);
        fiVersion = bind(lib, "fi_version", FunctionDescriptor.of(JAVA_INT), false);
        poll = bind(libc, "poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), true);
        eventfd = bind(libc, "eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), true);
        write = bind(libc, "write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), true);
        read = bind(libc, "read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), true);
        close = bind(libc, "close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), false);
    }

    /**
     * Opens {@code libfabric.so.1} and binds every entry point.
     *
     * @return the bound library; close it when the provider stops
     * @throws IllegalArgumentException when the library cannot be opened (not installed)
     * @throws IllegalStateException when an entry point is missing (an incompatible version)
     */
    public static Fabric load() {
        return load(LIBFABRIC);
    }

    /**
     * Opens the library by the given name (tests name missing ones).
     *
     * @param library the library name or path
     * @return the bound library
     */
    public static Fabric load(String library) {
        Arena arena = Arena.ofShared();
        // Debian's libfabric links libpsm2 and libinfinipath, whose constructors install SIGSEGV,
        // SIGBUS, SIGABRT, SIGTERM (...) handlers that print a backtrace; the JVM relies on its own
        // SIGSEGV handler (implicit null checks, safepoints) and crashes under theirs. Their
        // variables switch the handlers off; the guard restores whatever a library changed anyway.
        setenvIfUnset("HFI_NO_BACKTRACE", "1");
        setenvIfUnset("IPATH_NO_BACKTRACE", "1");
        // libfabric's registration cache (verbs uses it) hands a second fi_mr_reg of a cached range
        // the first one's registration, registered with every access: a DAT LMR is a registration
        // of its own, with its own privileges and PZ. Its memory monitors also hook munmap and
        // friends in the JVM's process; without the cache no monitor starts.
        setenvIfUnset("FI_MR_CACHE_MAX_COUNT", "0");
        setenvIfUnset("FI_MR_CACHE_MONITOR", "disabled");
        try (Arena guard = Arena.ofConfined()) {
            MemorySegment saved = saveSignals(guard);
            try {
                return new Fabric(arena, SymbolLookup.libraryLookup(library, arena));
            } catch (RuntimeException e) {
                arena.close();
                throw e;
            } finally {
                restoreSignals(saved);
            }
        }
    }

    private static void setenvIfUnset(String name, String value) {
        try (Arena local = Arena.ofConfined()) {
            int ignored = (int) SETENV.invokeExact(local.allocateFrom(name), local.allocateFrom(value), 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The current disposition of every signal, one {@code struct sigaction} each. */
    static MemorySegment saveSignals(Arena arena) {
        MemorySegment saved = arena.allocate(Structs.SIGACTION, LAST_SIGNAL + 1);
        for (int signal = 1; signal <= LAST_SIGNAL; signal++) {
            try {
                int ignored = (int) SIGACTION.invokeExact(signal, MemorySegment.NULL,
                        saved.asSlice(signal * Structs.SIGACTION.byteSize(), Structs.SIGACTION.byteSize()));
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }
        return saved;
    }

    /**
     * Whether two {@code struct sigaction}s say the same: the handler, and for a handler function
     * also the flags, restorer and mask as far as the kernel has it (64 signals; glibc leaves the
     * rest of its 1024-bit {@code sigset_t} as it finds it). A default or ignored disposition is that
     * alone, whatever flags it was set with.
     */
    static boolean sameDisposition(MemorySegment a, MemorySegment b) {
        long handler = a.get(JAVA_LONG, 0);
        if (handler != b.get(JAVA_LONG, 0)) {
            return false;
        }
        return handler == 0 || handler == 1 // SIG_DFL, SIG_IGN
                || a.get(JAVA_LONG, Structs.SIGACTION_MASK) == b.get(JAVA_LONG, Structs.SIGACTION_MASK)
                && a.get(JAVA_INT, Structs.SIGACTION_FLAGS) == b.get(JAVA_INT, Structs.SIGACTION_FLAGS)
                && a.get(JAVA_LONG, Structs.SIGACTION_RESTORER) == b.get(JAVA_LONG, Structs.SIGACTION_RESTORER);
    }

    /** Whether every signal's disposition in {@code a} is the one in {@code b} (both from {@link #saveSignals}). */
    static boolean sameDispositions(MemorySegment a, MemorySegment b) {
        long size = Structs.SIGACTION.byteSize();
        for (int signal = 1; signal <= LAST_SIGNAL; signal++) {
            if (!sameDisposition(a.asSlice(signal * size, size), b.asSlice(signal * size, size))) {
                return false;
            }
        }
        return true;
    }

    /** Puts back every disposition a library changed since {@link #saveSignals}. */
    static void restoreSignals(MemorySegment saved) {
        long size = Structs.SIGACTION.byteSize();
        try (Arena local = Arena.ofConfined()) {
            MemorySegment now = local.allocate(Structs.SIGACTION);
            for (int signal = 1; signal <= LAST_SIGNAL; signal++) {
                MemorySegment before = saved.asSlice(signal * size, size);
                int ignored = (int) SIGACTION.invokeExact(signal, MemorySegment.NULL, now);
                if (!sameDisposition(now, before)) {
                    ignored = (int) SIGACTION.invokeExact(signal, before, MemorySegment.NULL);
                    System.getLogger(Fabric.class.getName()).log(System.Logger.Level.DEBUG,
                            "libfabric or a provider library changed the handler of signal " + signal + ": restored");
                }
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static MethodHandle bind(SymbolLookup lookup, String name, FunctionDescriptor descriptor, boolean errno) {
        MemorySegment symbol = lookup.find(name).orElseThrow(() -> new IllegalStateException("symbol " + name + " not found"));
        return errno ? LINKER.downcallHandle(symbol, descriptor, ERRNO) : LINKER.downcallHandle(symbol, descriptor);
    }

    /** Unloads the library; every handle of this instance refuses to call afterwards. */
    @Override
    public void close() {
        arena.close();
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException e) {
            return e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** Reads a C string that native code returned, checking for {@code NULL} first. */
    public static String string(MemorySegment cString) {
        if (cString.equals(MemorySegment.NULL)) {
            return "";
        }
        return cString.reinterpret(4096).getString(0);
    }

    /**
     * The memory a pointer that native code returned points to, given the C size the caller knows
     * (a struct's {@code sizeof}, a length libfabric stated): the one place outside this package's
     * wrappers that gives native memory a size.
     */
    public static MemorySegment sized(MemorySegment pointer, long bytes) {
        return pointer.reinterpret(bytes);
    }

    /** @return a capture segment for the libc calls' {@code errno}, allocated in {@code arena} */
    public static MemorySegment allocateCapture(Arena arena) {
        return arena.allocate(CAPTURE);
    }

    private static int errno(MemorySegment capture) {
        return (int) CAPTURED_ERRNO.get(capture, 0L);
    }

    // ---- libfabric -------------------------------------------------------------------------------

    /** {@code fi_version()}: the library's API version, {@code (major << 16) | minor}. */
    public int version() {
        try {
            return (int) fiVersion.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code fi_getinfo}: the list of {@code struct fi_info} matching the hints, or
     * {@link MemorySegment#NULL} when none does ({@code -FI_ENODATA}). Free it with {@link #freeInfo}.
     *
     * @param node a host name or numeric address, or {@code null}
     * @param service a port, or {@code null}
     * @param flags {@code FI_SOURCE}, {@code FI_NUMERICHOST}, ...
     * @param hints a {@code struct fi_info} from {@link #allocInfo}, or {@code NULL}
     */
    public MemorySegment getInfo(String node, String service, long flags, MemorySegment hints) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(ADDRESS);
            MemorySegment nodeString = node == null ? MemorySegment.NULL : local.allocateFrom(node);
            MemorySegment serviceString = service == null ? MemorySegment.NULL : local.allocateFrom(service);
            // the first fi_getinfo loads libfabric's provider plugins: their constructors are guarded as the library's
            MemorySegment saved = saveSignals(local);
            int result;
            try {
                result = (int) fiGetinfo.invokeExact(Fi.VERSION_1_17, nodeString, serviceString, flags, hints, out);
            } finally {
                restoreSignals(saved);
            }
            if (result == -Fi.ENODATA) {
                return MemorySegment.NULL;
            }
            if (result != 0) {
                throw new NativeException("fi_getinfo", -result);
            }
            return out.get(ADDRESS, 0).reinterpret(Structs.FI_INFO.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code fi_freeinfo}: frees a list of {@code struct fi_info} (a {@code NULL} is ignored). */
    public void freeInfo(MemorySegment info) {
        if (info.equals(MemorySegment.NULL)) {
            return;
        }
        try {
            fiFreeinfo.invokeExact(info);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code fi_dupinfo}: a deep copy of one {@code struct fi_info} (its {@code next} is not followed). */
    public MemorySegment dupInfo(MemorySegment info) {
        MemorySegment copy;
        try {
            copy = (MemorySegment) fiDupinfo.invokeExact(info);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (copy.equals(MemorySegment.NULL)) {
            throw new NativeException("fi_dupinfo", Fi.ENOMEM);
        }
        return copy.reinterpret(Structs.FI_INFO.byteSize());
    }

    /** {@code fi_allocinfo()}: an empty {@code struct fi_info} with all its attribute structs, for hints. */
    public MemorySegment allocInfo() {
        return dupInfo(MemorySegment.NULL);
    }

    /** {@code fi_fabric}: opens the fabric an info's {@code fabric_attr} names. */
    public MemorySegment openFabric(MemorySegment fabricAttr) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(ADDRESS);
            int result = (int) fiFabric.invokeExact(fabricAttr, out, MemorySegment.NULL);
            if (result != 0) {
                throw new NativeException("fi_fabric", -result);
            }
            return out.get(ADDRESS, 0).reinterpret(Structs.FID_FABRIC.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code fi_strerror}. */
    public String strerror(int error) {
        try {
            return string((MemorySegment) fiStrerror.invokeExact(error));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- libc ------------------------------------------------------------------------------------

    /** {@code poll(2)}: the number of ready descriptors, 0 on timeout or EINTR. */
    public int poll(MemorySegment fds, int count, int timeoutMs, MemorySegment capture) {
        int result;
        try {
            result = (int) poll.invokeExact(capture, fds, (long) count, timeoutMs);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (result < 0) {
            int errno = errno(capture);
            if (errno == Fi.EINTR) {
                return 0;
            }
            throw new NativeException("poll", errno);
        }
        return result;
    }

    /** {@code eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)}: wakes the event thread. */
    public int eventfd() {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            int fd = (int) eventfd.invokeExact(capture, 0, EFD_NONBLOCK | EFD_CLOEXEC);
            if (fd < 0) {
                throw new NativeException("eventfd", errno(capture));
            }
            return fd;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Adds 1 to an eventfd (a failure to signal is ignored: the counter is only ever full). */
    public void signal(int fd, MemorySegment eight, MemorySegment capture) {
        eight.set(JAVA_LONG, 0, 1L);
        try {
            long ignored = (long) write.invokeExact(capture, fd, eight, 8L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Resets an eventfd's counter. */
    public void drain(int fd, MemorySegment eight, MemorySegment capture) {
        try {
            long ignored = (long) read.invokeExact(capture, fd, eight, 8L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code close(2)}. */
    public void closeFd(int fd) {
        try {
            int ignored = (int) close.invokeExact(fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Fills one {@code struct pollfd} of an array. */
    public static void pollFd(MemorySegment fds, int index, int fd) {
        long at = index * Structs.POLLFD.byteSize();
        fds.set(JAVA_INT, at + Structs.POLLFD_FD, fd);
        fds.set(JAVA_SHORT, at + Structs.POLLFD_EVENTS, (short) 1); // POLLIN
        fds.set(JAVA_SHORT, at + Structs.POLLFD_REVENTS, (short) 0);
    }

    /** Whether one {@code struct pollfd} of an array reported an event. */
    public static boolean ready(MemorySegment fds, int index) {
        return fds.get(JAVA_SHORT, index * Structs.POLLFD.byteSize() + Structs.POLLFD_REVENTS) != 0;
    }
}
