package dat.provider.sim.internal.tcp;

import dat.provider.sim.internal.core.*;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import java.util.logging.Logger;

/**
 * {@code SO_RCVLOWAT} on a connection's socket (Linux), which the JDK does not offer: how many
 * bytes the socket must hold before it reads as readable. A reader waiting for the rest of a large
 * payload sets it to what it still needs (up to {@link #CAP}), so that it wakes once per megabyte
 * instead of once per few segments; every wake-up of a reader waiting in a selector is paid on
 * loopback by the sending thread too, which runs the receiver's TCP work in its own system call.
 * A NIO stream of 4 MiB chunks into a selector-driven reader read 1.16-1.22 times as fast with it
 * on this project's loopback measurements.
 *
 * <p>It needs the socket's descriptor, which only the JDK's internal {@code sun.nio.ch.SelChImpl}
 * gives: with {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED} and native access enabled
 * for this code, on Linux x86-64 or AArch64, it is {@link #available()}; anywhere else readers
 * are woken by every segment. The descriptor is used only by the I/O agent while its selector holds a
 * registration of the channel: the JDK closes a registered channel's descriptor only once every
 * selector let go of it, so the number cannot meanwhile name another file.
 */
@SuppressWarnings("restricted") // a downcall to setsockopt, after the module was found to have native access
final class ReceiveLowWater {

    private static final Logger LOG = Logger.getLogger(ReceiveLowWater.class.getName());

    /** The most a reader asks for: a megabyte wakes it about four times per 4 MiB payload. */
    static final int CAP = 1 << 20;
    /** Payloads with less than this left leave the mark at one byte, woken by every segment. */
    static final int MIN = 128 << 10;

    private static final int SOL_SOCKET = 1; // Linux, outside alpha, mips, parisc and sparc
    private static final int SO_RCVLOWAT = 18;

    /** {@code int fd(SocketChannel)}, or {@code null} where unavailable. */
    private static final MethodHandle FD;
    /** {@code int setsockopt(int, int, int, const void *, socklen_t)}, or {@code null}. */
    private static final MethodHandle SETSOCKOPT;
    /** Why it is unavailable, or {@code null}. */
    private static final String UNAVAILABLE;

    static {
        MethodHandle fd = null;
        MethodHandle setsockopt = null;
        String why = null;
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        boolean platform = os.startsWith("linux") && (arch.equals("amd64") || arch.equals("aarch64"));
        if (!platform) {
            why = "not Linux on x86-64 or AArch64";
        } else if (!ReceiveLowWater.class.getModule().isNativeAccessEnabled()) {
            why = "native access is not enabled (--enable-native-access)"; // asked before a warning could be printed
        } else {
            try {
                Class<?> selectable = Class.forName("sun.nio.ch.SelChImpl", false, null); // java.base, whatever loads this class
                fd = MethodHandles.lookup().findVirtual(selectable, "getFDVal", MethodType.methodType(int.class))
                        .asType(MethodType.methodType(int.class, SocketChannel.class));
                Linker linker = Linker.nativeLinker();
                setsockopt = linker.downcallHandle(linker.defaultLookup().find("setsockopt").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                                ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                fd = null;
                setsockopt = null;
                why = "no socket descriptor (--add-exports java.base/sun.nio.ch=ALL-UNNAMED): " + e;
            }
        }
        FD = fd;
        SETSOCKOPT = setsockopt;
        UNAVAILABLE = why;
        if (setsockopt == null) {
            // once per JVM, as its first TCP IA opens: the one trace of a slower path, at INFO
            // where JVM options would give it (elsewhere nothing can)
            String message = "sim TCP: readers wait for large payloads without SO_RCVLOWAT, about a sixth slower: " + why;
            if (!platform) {
                LOG.fine(message);
            } else {
                LOG.info(message);
            }
        }
    }

    private final MemorySegment value = Arena.ofAuto().allocate(ValueLayout.JAVA_INT);
    /** What the socket holds now; 1 is the kernel's default. */
    private int current = 1;
    /** How often the mark went above 1 (the I/O agent's; read by tests). */
    private volatile long raised;

    /** @return whether readers can set the low-water mark here */
    static boolean available() {
        return SETSOCKOPT != null;
    }

    /** @return why readers cannot set it, or {@code null} when they can */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    /** @return the mark a reader sets while {@code payloadLeft} bytes of a frame are still to come */
    static int forPayload(long payloadLeft) {
        return payloadLeft < MIN ? 1 : (int) Math.min(payloadLeft, CAP);
    }

    /** @return how often the mark went above 1 */
    long raised() {
        return raised;
    }

    /** @return the mark the socket holds now (as this object last set it) */
    int current() {
        return current;
    }

    /**
     * Sets the mark, unless it is set already. Only the I/O agent, with its selector
     * registered for the channel (see the class comment).
     *
     * @return whether the socket now holds {@code bytes}; {@code false} when unavailable or refused
     */
    boolean set(SocketChannel channel, int bytes) {
        if (bytes == current) {
            return true;
        }
        if (SETSOCKOPT == null) {
            return false;
        }
        try {
            int fd = (int) FD.invokeExact(channel); // the channel's, for good: safe only as the class comment says
            value.set(ValueLayout.JAVA_INT, 0, bytes);
            int result = (int) SETSOCKOPT.invokeExact(fd, SOL_SOCKET, SO_RCVLOWAT, value, (int) ValueLayout.JAVA_INT.byteSize());
            if (result != 0) {
                return false;
            }
            if (bytes > 1) {
                raised++; // one writer, the I/O agent
            }
            current = bytes;
            return true;
        } catch (Error e) {
            throw e;
        } catch (Throwable e) {
            return false; // none expected: the reader then waits as without the mark
        }
    }
}
