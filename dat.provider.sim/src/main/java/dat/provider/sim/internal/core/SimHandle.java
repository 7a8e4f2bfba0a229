package dat.provider.sim.internal.core;

import dat.api.DatException;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.HandleType;

/**
 * What every handle of the sim provider shares: its type, its IA, its consumer context and its
 * validity. A handle is valid until it is freed or its IA is closed or dies with the provider;
 * then the control path throws {@link DatReturn#INVALID_HANDLE} with the handle's subtype and the
 * data path returns that code.
 *
 * <p>See dat_get_handle_type(3DAT), dat_set_consumer_context(3DAT), dat_get_consumer_context(3DAT).
 */
public abstract class SimHandle implements DatHandle {

    private final HandleType type;
    private final int invalidCode;
    /** Set once by the object's free (or its IA's close); never cleared. */
    volatile boolean freed;

    /** Whether the object was freed (or its IA closed): set once, never cleared. */
    public final boolean isFreed() {
        return freed;
    }
    private volatile Object consumerContext;

    SimHandle(HandleType type, int invalidSubtype) {
        this.type = type;
        this.invalidCode = DatReturn.error(DatReturn.INVALID_HANDLE, invalidSubtype);
    }

    /** The IA that owns this object (the IA itself for an IA). */
    abstract SimIa ia();

    /** The data-path code for this handle when it is no longer valid. */
    final int invalidCode() {
        return invalidCode;
    }

    @Override
    public boolean isOpen() {
        return !freed && ia().usable();
    }

    /** Throws {@link DatReturn#INVALID_HANDLE} unless the handle is valid. */
    final void checkOpen() {
        if (!isOpen()) {
            throw invalid();
        }
    }

    final DatException invalid() {
        return new DatException(invalidCode, null, this + " is not a valid handle (freed, or its IA is closed)", null);
    }

    @Override
    public HandleType handleType() {
        checkOpen();
        return type;
    }

    @Override
    public Object consumerContext() {
        checkOpen();
        return consumerContext;
    }

    @Override
    public void setConsumerContext(Object context) {
        checkOpen();
        consumerContext = context;
    }

    /** The handle type, also for freed handles (diagnostics). */
    final HandleType type() {
        return type;
    }

    static DatException invalidParameter(int arg, String argument, String detail) {
        return DatException.of(DatReturn.INVALID_PARAMETER, arg, argument, detail);
    }

    static DatException invalidState(int subtype, String detail) {
        return DatException.of(DatReturn.INVALID_STATE, subtype, null, detail);
    }

    static DatException invalidHandle(int subtype, String argument, String detail) {
        return DatException.of(DatReturn.INVALID_HANDLE, subtype, argument, detail);
    }

    static DatException insufficient(int subtype, String detail) {
        return DatException.of(DatReturn.INSUFFICIENT_RESOURCES, subtype, null, detail);
    }

    @Override
    public String toString() {
        return "sim-" + type + "@" + Integer.toHexString(System.identityHashCode(this)) + (freed ? "(freed)" : "");
    }

    /**
     * The dat_*_free(3DAT) of an object freed under the provider's CM lock: once (a second free
     * does nothing), the handle checked open, then {@code checksThenDestroy}, which throws when
     * the object is still in use and otherwise destroys it.
     */
    final void freeUnderCmLock(Runnable checksThenDestroy) {
        if (freed) {
            return;
        }
        java.util.concurrent.locks.ReentrantLock cm = ia().provider.cmLock;
        cm.lock();
        try {
            if (freed) {
                return;
            }
            checkOpen();
            checksThenDestroy.run();
        } finally {
            cm.unlock();
        }
    }

    /**
     * {@link #freeUnderCmLock} of an object that others use: while {@code users} counts any, the
     * free fails with DAT_INVALID_STATE of {@code subtype} and the message {@code inUse} makes of
     * the count; otherwise {@code destroy} runs.
     */
    final void freeUnlessUsed(java.util.concurrent.atomic.AtomicInteger users, int subtype,
            java.util.function.IntFunction<String> inUse, Runnable destroy) {
        freeUnderCmLock(() -> {
            int n = users.get();
            if (n > 0) {
                throw invalidState(subtype, inUse.apply(n));
            }
            destroy.run();
        });
    }

    /**
     * The checks a dat_*_query(3DAT) makes first: the handle open, and no undefined bit in its
     * parameter mask (the second argument).
     */
    final void checkQueryMask(boolean valid, String argument, long mask) {
        checkOpen();
        if (!valid) {
            throw invalidParameter(DatReturn.INVALID_ARG2, argument, "undefined bits 0x" + Long.toHexString(mask));
        }
    }
}
