package dat.provider.ofi.internal;

import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.HandleType;

/**
 * What every DAT object of this provider shares: its type, its IA, the consumer context, and the
 * freed flag that makes every later call answer {@link DatReturn#INVALID_HANDLE}.
 */
abstract class OfiHandle implements DatHandle {

    final OfiIa ia;
    private final HandleType type;
    private final int invalidSubtype;
    private volatile Object consumerContext;
    volatile boolean freed;

    OfiHandle(OfiIa ia, HandleType type, int invalidSubtype) {
        this.ia = ia;
        this.type = type;
        this.invalidSubtype = invalidSubtype;
    }

    /** Whether the handle is usable: not freed, and its IA neither closed nor failed. */
    @Override
    public boolean isOpen() {
        return !freed && (ia == null || ia.isUsable());
    }

    /** The code the data path returns for this handle once freed. */
    final int invalidHandleCode() {
        return Codes.invalidHandle(invalidSubtype);
    }

    /** Throws {@code DAT_INVALID_HANDLE} (with this type's subtype) unless the handle is open. */
    final void checkOpen() {
        if (!isOpen()) {
            throw Codes.exception(DatReturn.INVALID_HANDLE, invalidSubtype, type.name().toLowerCase(java.util.Locale.ROOT),
                    "the " + type + " handle was freed or its IA is closed");
        }
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

    @Override
    public String toString() {
        return getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(this)) + (freed ? "(freed)" : "");
    }
}
