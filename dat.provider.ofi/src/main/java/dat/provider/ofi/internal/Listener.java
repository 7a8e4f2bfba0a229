package dat.provider.ofi.internal;

import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.ofi.internal.ffi.Ops;
import java.lang.foreign.MemorySegment;

/**
 * A passive endpoint and who uses it: its Service Point, and the Connection Requests it received,
 * which accept or reject through it ({@code fi_reject(pep, handle, ...)}). It is closed when the
 * last of them lets go, so a Service Point freed before its requests leaves them a live passive
 * endpoint. Guarded by the IA's CM lock.
 */
final class Listener {

    final MemorySegment pep;
    private int users = 1;

    Listener(MemorySegment pep) {
        this.pep = pep;
    }

    /** A Connection Request of this passive endpoint holds it too. */
    Listener retain() {
        users++;
        return this;
    }

    /** One user lets go; the last closes the passive endpoint. */
    void release() {
        if (--users == 0) {
            try {
                Ops.close(pep);
            } catch (NativeException e) {
                System.getLogger(Listener.class.getName()).log(System.Logger.Level.WARNING, "fi_close of a passive endpoint failed", e);
            }
        }
    }
}
