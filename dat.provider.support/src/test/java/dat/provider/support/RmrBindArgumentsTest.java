package dat.provider.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.CompletionFlags;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.LmrTriplet;
import dat.api.MemPrivileges;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class RmrBindArgumentsTest {

    private static final int DEFINED = RmrBindArguments.readWritePrivileges();
    private final LmrTriplet segment = new LmrTriplet(7, 0x1000, 64);

    @Test
    void validArgumentsPass() {
        assertThatCode(() -> RmrBindArguments.check(segment, MemPrivileges.REMOTE_WRITE, DEFINED, CompletionFlags.BARRIER_FENCE))
                .doesNotThrowAnyException();
        assertThatCode(() -> RmrBindArguments.check(new LmrTriplet(0, 0, 0), 0, DEFINED, CompletionFlags.UNSIGNALLED))
                .doesNotThrowAnyException();
        assertThatCode(() -> RmrBindArguments.checkLmrAccess(true, true, true, true)).doesNotThrowAnyException();
        assertThatCode(() -> RmrBindArguments.checkLmrAccess(false, false, false, false)).doesNotThrowAnyException();
    }

    @Test
    void eachBadArgumentIsNamed() {
        expect(() -> RmrBindArguments.check(null, 0, DEFINED, 0), DatReturn.INVALID_ARG2, "lmrTriplet");
        expect(() -> RmrBindArguments.check(new LmrTriplet(7, 0x1000, -1), 0, DEFINED, 0), DatReturn.INVALID_ARG2, "lmrTriplet");
        expect(() -> RmrBindArguments.check(segment, 0x4000, DEFINED, 0), DatReturn.INVALID_ARG3, "memPrivileges");
        expect(() -> RmrBindArguments.check(segment, 0, DEFINED, CompletionFlags.SOLICITED_WAIT), DatReturn.INVALID_ARG6,
                "completionFlags");
        expect(() -> RmrBindArguments.check(segment, 0, DEFINED, CompletionFlags.EVD_THRESHOLD), DatReturn.INVALID_ARG6,
                "completionFlags");
        expect(() -> RmrBindArguments.check(segment, 0, DEFINED, 0x4000_0000), DatReturn.INVALID_ARG6, "completionFlags");
    }

    @Test
    void theLmrIsKnownHoldsTheSegmentAndIsInThePz_inThatOrder() {
        assertThatCode(() -> RmrBindArguments.checkLmr(true, true, true)).doesNotThrowAnyException();
        expect(() -> RmrBindArguments.checkLmr(false, false, false), DatReturn.INVALID_ARG2, "lmrTriplet");
        expect(() -> RmrBindArguments.checkLmr(true, false, false), DatReturn.INVALID_ARG2, "lmrTriplet");
        assertThatThrownBy(() -> RmrBindArguments.checkLmr(true, true, false)).isInstanceOfSatisfying(DatException.class, e -> {
            assertThat(e.type()).isEqualTo(DatReturn.PROTECTION_VIOLATION);
            assertThat(e.argument()).isEqualTo("lmrTriplet");
        });
    }

    @Test
    void remoteAccessNeedsTheMatchingLocalAccess() {
        assertThatThrownBy(() -> RmrBindArguments.checkLmrAccess(true, false, false, true))
                .isInstanceOfSatisfying(DatException.class, e -> {
                    assertThat(e.type()).isEqualTo(DatReturn.PRIVILEGES_VIOLATION);
                    assertThat(e.argument()).isEqualTo("memPrivileges");
                });
        assertThatThrownBy(() -> RmrBindArguments.checkLmrAccess(false, true, true, false))
                .isInstanceOfSatisfying(DatException.class,
                        e -> assertThat(e.type()).isEqualTo(DatReturn.PRIVILEGES_VIOLATION));
    }

    private static void expect(ThrowingCallable call, int subtype, String argument) {
        assertThatThrownBy(call).isInstanceOfSatisfying(DatException.class, e -> {
            assertThat(e.code()).isEqualTo(DatReturn.error(DatReturn.INVALID_PARAMETER, subtype));
            assertThat(e.argument()).isEqualTo(argument);
        });
    }
}
