package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dat.provider.ofi.internal.ffi.Fabric;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.ofi.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * A waiter's own block on its EVD's completion queue: {@code fi_trywait} on the CQ, then
 * {@code poll(2)} on the CQ's wait descriptor ({@code FI_WAIT_FD}: readable when a socket of its
 * endpoints is) and on an eventfd of the EVD, which {@link #wake} signals (an event posted, the
 * EVD disabled, made unwaitable or freed). The waiter itself then reads the CQ, and its read
 * drives libfabric's progress: no other thread moves a completion between the wire and the
 * consumer.
 *
 * <p>Only a platform thread blocks here (a virtual thread parks, and the event thread watches the
 * CQ for it). {@link CompletionQueue#closeNative} waits until no waiter is inside, since
 * {@code poll} and {@code fi_trywait} use the CQ's descriptor and {@code fid}.
 */
final class NativeWait {

    /**
     * The longest single block: a thread blocked in {@code poll(2)} does not see
     * {@link Thread#interrupt}, so it looks up at least this often.
     */
    private static final int MAX_BLOCK_MS = 20;

    private final Fabric fabric;
    private final MemorySegment fabricFid;
    private final Arena arena = Arena.ofShared();
    private final int wakeFd;
    private final int cqFd;
    private final MemorySegment fds;
    private final MemorySegment fids;
    private final MemorySegment eight;
    private final MemorySegment wakeEight;
    private final MemorySegment capture;
    private final MemorySegment wakeCapture;
    /** How many threads are inside {@link #block}: the CQ may not be closed while one is. */
    private volatile int inside;
    /** Set by {@link #close}: a waiter that comes in after it does not touch the CQ. */
    private volatile boolean closing;
    /** Set once the eventfd is closed; guarded by this object's monitor. */
    private boolean closed;
    /** Set while a waiter may block: {@link #wake} then signals the eventfd. */
    private volatile boolean armed;
    private int refused;

    NativeWait(OfiIa ia, CompletionQueue cq) {
        this.fabric = ia.fabric;
        this.fabricFid = ia.domain.fabricFid;
        this.wakeFd = fabric.eventfd();
        this.cqFd = cq.waitFd;
        fds = arena.allocate(Structs.POLLFD, 2);
        fids = arena.allocate(ADDRESS, 1);
        eight = arena.allocate(8, 8);
        wakeEight = arena.allocate(8, 8);
        capture = Fabric.allocateCapture(arena);
        wakeCapture = Fabric.allocateCapture(arena);
        fids.set(ADDRESS, 0, cq.cq);
    }

    /** The waiter (EVD lock held) will block from now on: a {@link #wake} must reach it. */
    void arm() {
        armed = true;
    }

    /** The waiter (EVD lock held) left the wait. */
    void disarm() {
        armed = false;
        refused = 0;
    }

    boolean isArmed() {
        return armed;
    }

    /**
     * Wakes a waiter blocked (or about to block) here; no allocation, any thread. The monitor keeps
     * the eventfd from being closed (and its number reused) under the write.
     */
    void wake() {
        if (armed) {
            synchronized (this) {
                if (!closed) {
                    fabric.signal(wakeFd, wakeEight, wakeCapture);
                }
            }
        }
    }

    /**
     * Blocks until the CQ's descriptor or the eventfd is readable, {@code timeoutNanos} pass (then
     * at most {@link #MAX_BLOCK_MS}), or at once when {@code fi_trywait} says completions or bytes
     * are pending; called without the EVD's lock, by the one waiter of the EVD.
     */
    void block(long timeoutNanos) {
        inside++; // one waiter per EVD: the EVD's waiter field admits no second one
        try {
            if (closing) {
                return; // the EVD was freed: its waiter returns DAT_ABORT
            }
            int timeoutMs = timeoutNanos >= MAX_BLOCK_MS * 1_000_000L ? MAX_BLOCK_MS
                    : (int) Math.max(1, (timeoutNanos + 999_999) / 1_000_000);
            if (Ops.trywait(fabricFid, fids, 1) != 0) {
                // bytes libfabric holds in user space (a message whose receive is not posted yet)
                // show on no descriptor: read again at once, and after a millisecond when it persists
                if (++refused <= 2) {
                    Thread.onSpinWait();
                    return;
                }
                timeoutMs = 1;
            } else {
                refused = 0;
            }
            Fabric.pollFd(fds, 0, cqFd);
            Fabric.pollFd(fds, 1, wakeFd);
            fabric.poll(fds, 2, timeoutMs, capture);
            if (Fabric.ready(fds, 1)) {
                fabric.drain(wakeFd, eight, capture);
            }
        } finally {
            inside--;
        }
    }

    /** Waits (bounded) until no waiter is inside, then frees the eventfd and the native memory. */
    void close() {
        closing = true;
        long deadline = System.nanoTime() + 1_000_000_000L;
        armed = true;
        while (inside > 0 && System.nanoTime() - deadline < 0) {
            wake();
            LockSupport.parkNanos(100_000);
        }
        synchronized (this) {
            closed = true;
            fabric.closeFd(wakeFd);
        }
        arena.close();
    }
}
