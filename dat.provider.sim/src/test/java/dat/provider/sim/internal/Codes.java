package dat.provider.sim.internal;

import dat.provider.sim.internal.core.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.DatException;
import dat.api.DatReturn;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Assertions on DAT return codes, printed by name. */
public final class Codes {

    private Codes() {
    }

    /** The call throws a {@link DatException} of this type (any subtype). */
    public static void throwsType(ThrowingCallable call, int type) {
        assertThatThrownBy(call).isInstanceOfSatisfying(DatException.class,
                e -> assertThat(DatReturn.typeName(e.code())).as(e.getMessage()).isEqualTo(DatReturn.typeName(type)));
    }

    /** The call throws a {@link DatException} with exactly this type and subtype. */
    public static void throwsCode(ThrowingCallable call, int type, int subtype) {
        assertThatThrownBy(call).isInstanceOfSatisfying(DatException.class,
                e -> assertThat(DatReturn.describe(e.code())).as(e.getMessage())
                        .isEqualTo(DatReturn.describe(DatReturn.error(type, subtype))));
    }

    /** A data-path code has this type. */
    public static void isType(int rc, int type) {
        assertThat(DatReturn.describe(rc)).isEqualTo(DatReturn.describe(type == DatReturn.SUCCESS ? 0 : DatReturn.error(type, DatReturn.subtypeOf(rc))));
        assertThat(DatReturn.isError(rc)).isEqualTo(type != DatReturn.SUCCESS);
    }

    public static void ok(int rc) {
        assertThat(DatReturn.describe(rc)).isEqualTo("DAT_SUCCESS");
    }
}
