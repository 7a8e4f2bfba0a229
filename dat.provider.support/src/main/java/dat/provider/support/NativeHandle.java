package dat.provider.support;

import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.HandleType;
import java.util.Locale;

/**
 * What every DAT object of a native provider shares: its type, the consumer context, and the
 * checks that make every call on a freed handle, or on one whose IA is closed, answer
 * {@link DatReturn#INVALID_HANDLE} with the type's subtype. The provider's own base class says
 * when the handle is open.
 */
public abstract class NativeHandle implements DatHandle {

    private final HandleType type;
    private final int invalidSubtype;
    private volatile Object consumerContext;

    protected NativeHandle(HandleType type, int invalidSubtype) {
        this.type = type;
        this.invalidSubtype = invalidSubtype;
    }

    /** The code the data path returns for this handle once it is not open. */
    public final int invalidHandleCode() {
        return ReturnCodes.invalidHandle(invalidSubtype);
    }

    /** Throws {@code DAT_INVALID_HANDLE} (with this type's subtype) unless the handle is open. */
    public final void checkOpen() {
        if (!isOpen()) {
            throw ReturnCodes.exception(DatReturn.INVALID_HANDLE, invalidSubtype, type.name().toLowerCase(Locale.ROOT),
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
        return getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(this)) + (isOpen() ? "" : "(closed)");
    }
}
