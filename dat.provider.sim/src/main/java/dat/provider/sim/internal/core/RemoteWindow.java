package dat.provider.sim.internal.core;

import java.lang.foreign.MemorySegment;

/**
 * Memory a peer may reach by RDMA through an RMR context: an LMR registered with remote
 * privileges, or a bound RMR. The target side of every RDMA operation checks it (context, IA, PZ,
 * bounds, privileges) before one byte moves.
 */
public interface RemoteWindow {

    /** Whether the context is currently valid (not freed, bind completed). */
    boolean windowValid();

    SimIa windowIa();

    SimPz windowPz();

    /** {@link dat.api.MemPrivileges} the window grants remotely. */
    int windowPrivileges();

    /** First address the window covers. */
    long windowStart();

    /** Bytes the window covers. */
    long windowLength();

    /** The memory behind the window; offset 0 is address {@link #memoryBase()}. */
    MemorySegment windowMemory();

    long memoryBase();
}
