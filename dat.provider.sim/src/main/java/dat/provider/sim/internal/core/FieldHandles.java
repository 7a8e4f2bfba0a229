package dat.provider.sim.internal.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** VarHandles of fields, for the ordered and atomic accesses of the data path's lock-free parts. */
public final class FieldHandles {

    private FieldHandles() {
    }

    /**
     * The VarHandle of a field, found with the declaring class's own lookup.
     *
     * @throws ExceptionInInitializerError when there is no such field (a defect, met at class initialization)
     */
    public static VarHandle of(MethodHandles.Lookup lookup, Class<?> owner, String name, Class<?> type) {
        try {
            return lookup.findVarHandle(owner, name, type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
