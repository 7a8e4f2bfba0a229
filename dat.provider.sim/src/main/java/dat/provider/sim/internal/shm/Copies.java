package dat.provider.sim.internal.shm;

import dat.provider.sim.internal.core.RemoteWindow;
import dat.provider.sim.internal.core.SimLmr;
import dat.provider.sim.internal.core.Wr;
import java.lang.foreign.MemorySegment;

/**
 * The copies between consumer memory and shared memory (a ring, or a peer's file), each with the
 * connection's Endpoint lock held and under the {@link Fences} protocol: a window marked, then the
 * LMR or window checked, then one {@code MemorySegment.copy}. Consumer memory is reached only
 * through its LMR's or window's segment, so a bad offset can never reach other memory; a segment
 * whose arena closed, or a shared mapping cut short under the copy (the JVM reports the fault as
 * an {@link InternalError}), ends the copy with a status, never the JVM.
 */
final class Copies {

    /** The copy went whole. */
    static final int OK = 0;
    /** An LMR of the consumer's side was freed or its memory closed (or a window revoked). */
    static final int MEMORY_GONE = 1;
    /** The shared side failed: the ring's mapping closed (the connection ends) or a peer's mapping was cut short. */
    static final int SHARED_GONE = 2;

    private Copies() {
    }

    /**
     * Copies {@code n} bytes of a request's segments, from byte {@code offset} of the whole, into
     * {@code dst} at {@code at}.
     */
    static int gather(Wr src, long offset, MemorySegment dst, long at, long n, Fences f) {
        return acrossSegments(src, offset, dst, at, n, false, f);
    }

    /**
     * Copies {@code n} bytes of {@code src} at {@code from} into a receive's or read's segments,
     * from byte {@code offset} of the whole (the front segments fill first, dat_ep_post_recv(3DAT)).
     */
    static int scatter(MemorySegment src, long from, long n, Wr dst, long offset, Fences f) {
        return acrossSegments(dst, offset, src, from, n, true, f);
    }

    /**
     * Copies {@code n} bytes between {@code wr}'s segments, from byte {@code offset} of the whole,
     * and {@code other} at {@code otherAt}: into the segments where {@code intoSegments}, else out of them.
     */
    private static int acrossSegments(Wr wr, long offset, MemorySegment other, long otherAt, long n, boolean intoSegments, Fences f) {
        long skip = offset;
        long left = n;
        long at = otherAt;
        for (int i = 0; i < wr.segments && left > 0; i++) {
            long len = wr.lengths[i];
            if (skip >= len) {
                skip -= len;
                continue;
            }
            long part = Math.min(len - skip, left);
            int r = one(wr.lmrs[i], null, wr.offsets[i] + skip, other, at, part, intoSegments, f);
            if (r != OK) {
                return r;
            }
            at += part;
            left -= part;
            skip = 0;
        }
        return OK;
    }

    /** Copies {@code n} bytes of {@code src} at {@code from} into a window at {@code offset} of its memory. */
    static int intoWindow(MemorySegment src, long from, RemoteWindow w, long offset, long n, Fences f) {
        return one(null, w, offset, src, from, n, true, f);
    }

    /** Copies {@code n} bytes of a window at {@code offset} of its memory into {@code dst} at {@code at}. */
    static int fromWindow(RemoteWindow w, long offset, MemorySegment dst, long at, long n, Fences f) {
        return one(null, w, offset, dst, at, n, false, f);
    }

    /**
     * One copy between consumer memory (an LMR's segment at {@code offset}, or a window's) and
     * shared memory ({@code shared} at {@code at}), {@code into} the consumer's or out of it.
     */
    private static int one(SimLmr lmr, RemoteWindow w, long offset, MemorySegment shared, long at, long n, boolean into, Fences f) {
        if (n == 0) {
            return OK;
        }
        MemorySegment memory;
        try {
            memory = lmr != null ? lmr.memory() : w.windowMemory();
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return MEMORY_GONE;
        }
        if (w != null) {
            f.mark(w); // an LMR's copy is fenced by the Endpoint lock it holds (Fences)
        }
        try {
            if (lmr != null ? lmr.isFreed() : !w.windowValid()) {
                return MEMORY_GONE;
            }
            if (into) {
                MemorySegment.copy(shared, at, memory, offset, n);
            } else {
                MemorySegment.copy(memory, offset, shared, at, n);
            }
            return OK;
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return shared.scope().isAlive() && memoryFailed(memory, offset, n) ? MEMORY_GONE : SHARED_GONE;
        } catch (InternalError e) {
            return SHARED_GONE; // a fault in a mapping cut short (a file truncated under it)
        } finally {
            if (w != null) {
                f.unmark();
            }
        }
    }

    /** Whether the consumer's side of a failed copy is the one at fault (closed, or the range outside it). */
    private static boolean memoryFailed(MemorySegment memory, long offset, long n) {
        return !memory.scope().isAlive() || offset < 0 || n > memory.byteSize() - offset;
    }
}
