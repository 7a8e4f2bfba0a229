package dat.provider.verbs.internal.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
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
 * The libc calls of the IA's event thread: {@code poll(2)} on its descriptors, {@code fcntl(2)}
 * to make them non-blocking, and the {@code eventfd(2)} that stops it. libc is always loaded, so
 * the handles are constants, bound once (the verbs libraries, which a bundle stop unloads, are
 * {@link Verbs}).
 */
@SuppressWarnings("restricted") // this package is the one place that calls native code
public final class Libc {

    private Libc() {
    }

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle CAPTURED_ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final SymbolLookup LIBC = LINKER.defaultLookup();

    // fcntl(2) and eventfd(2) constants (x86-64 Linux)
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 04000;
    private static final int EFD_NONBLOCK = 04000;
    private static final int EFD_CLOEXEC = 02000000;

    private static final MethodHandle POLL = bind("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), true);
    private static final MethodHandle FCNTL = LINKER.downcallHandle(find("fcntl"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), ERRNO, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle EVENTFD = bind("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), true);
    private static final MethodHandle WRITE = bind("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), true);
    private static final MethodHandle READ = bind("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), true);
    private static final MethodHandle CLOSE = bind("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), false);

    private static MemorySegment find(String name) {
        return LIBC.find(name).orElseThrow(() -> new IllegalStateException("libc symbol " + name + " not found"));
    }

    private static MethodHandle bind(String name, FunctionDescriptor descriptor, boolean errno) {
        return errno ? LINKER.downcallHandle(find(name), descriptor, ERRNO) : LINKER.downcallHandle(find(name), descriptor);
    }

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

    private static void zeroOrErrno(String function, int result, MemorySegment capture) {
        if (result != 0) {
            throw new NativeException(function, errno(capture));
        }
    }

    /** A capture segment for the non-blocking event calls, allocated once per event thread. */
    public static MemorySegment allocateCapture(Arena arena) {
        return arena.allocate(CAPTURE);
    }

    /**
     * {@code poll(2)}.
     *
     * @return the number of ready descriptors, 0 on timeout or {@code EINTR}
     */
    public static int poll(MemorySegment fds, int count, int timeoutMs, MemorySegment capture) {
        int result;
        try {
            result = (int) POLL.invokeExact(capture, fds, (long) count, timeoutMs);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (result >= 0) {
            return result;
        }
        int errno = errno(capture);
        if (errno == Errno.EINTR) {
            return 0;
        }
        throw new NativeException("poll", errno);
    }

    /** Sets {@code O_NONBLOCK} on a descriptor with {@code fcntl(2)}. */
    public static void setNonBlocking(int fd) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            int flags = (int) FCNTL.invokeExact(capture, fd, F_GETFL, 0);
            if (flags < 0) {
                throw new NativeException("fcntl(F_GETFL)", errno(capture));
            }
            zeroOrErrno("fcntl(F_SETFL)", (int) FCNTL.invokeExact(capture, fd, F_SETFL, flags | O_NONBLOCK), capture);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A non-blocking {@code eventfd(2)}: the wake-up descriptor of an event thread. */
    public static int eventfd() {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment capture = local.allocate(CAPTURE);
            int fd = (int) EVENTFD.invokeExact(capture, 0, EFD_NONBLOCK | EFD_CLOEXEC);
            if (fd < 0) {
                throw new NativeException("eventfd", errno(capture));
            }
            return fd;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Adds 1 to an eventfd's counter (wakes its poller). */
    public static void signal(int eventFd, MemorySegment eightBytes, MemorySegment capture) {
        eightBytes.set(JAVA_LONG, 0, 1L);
        try {
            long ignored = (long) WRITE.invokeExact(capture, eventFd, eightBytes, 8L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Reads (resets) an eventfd's counter. */
    public static void drain(int eventFd, MemorySegment eightBytes, MemorySegment capture) {
        try {
            long ignored = (long) READ.invokeExact(capture, eventFd, eightBytes, 8L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code close(2)}. */
    public static void closeFd(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
