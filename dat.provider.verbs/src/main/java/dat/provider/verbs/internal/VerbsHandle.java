package dat.provider.verbs.internal;

import dat.api.HandleType;
import dat.provider.support.NativeHandle;

/** The base of this provider's DAT objects: their IA, and the freed flag that, with the IA's state, says whether the handle is open. */
abstract class VerbsHandle extends NativeHandle {

    final VerbsIa ia;
    volatile boolean freed;

    VerbsHandle(VerbsIa ia, HandleType type, int invalidSubtype) {
        super(type, invalidSubtype);
        this.ia = ia;
    }

    /** Whether the handle is usable: not freed, and its IA neither closed nor failed. */
    @Override
    public boolean isOpen() {
        return !freed && (ia == null || ia.isUsable());
    }
}
