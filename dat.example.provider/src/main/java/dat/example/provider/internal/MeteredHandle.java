package dat.example.provider.internal;

import dat.api.DatHandle;
import dat.api.HandleType;

/**
 * The part every decorating handle shares: the underlying handle it forwards to and the metered IA
 * it belongs to. The consumer context is kept by the underlying handle, which also checks that the
 * handle is still valid. Once the metered IA failed (the metered provider left), every call answers
 * {@code DAT_INVALID_HANDLE}.
 *
 * @param <H> the type of the underlying handle
 */
abstract class MeteredHandle<H extends DatHandle> implements DatHandle {

    /** The underlying provider's handle. */
    final H u;
    /** The metered IA this handle was created through. */
    final MeteredIa ia;

    MeteredHandle(H underlying, MeteredIa ia) {
        this.u = underlying;
        this.ia = ia;
    }

    /** Throws {@code DAT_INVALID_HANDLE} when the metered provider left. */
    final void checkUsable() {
        if (ia.failed()) {
            throw Codes.providerLeft(getClass().getSimpleName());
        }
    }

    @Override
    public HandleType handleType() {
        checkUsable();
        return u.handleType();
    }

    @Override
    public Object consumerContext() {
        checkUsable();
        return u.consumerContext();
    }

    @Override
    public void setConsumerContext(Object context) {
        checkUsable();
        u.setConsumerContext(context);
    }

    @Override
    public boolean isOpen() {
        return !ia.failed() && u.isOpen();
    }

    /**
     * Frees the underlying object and forgets this wrapper; after the metered provider left, the
     * underlying objects go with the underlying IA, so freeing is a no-op.
     */
    @Override
    public void close() {
        if (ia.failed()) {
            return;
        }
        u.close();
        ia.handles.forget(u);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + u + "]";
    }
}
