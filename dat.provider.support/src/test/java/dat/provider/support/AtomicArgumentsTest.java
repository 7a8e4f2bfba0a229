package dat.provider.support;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatReturn;
import dat.api.LmrTriplet;
import dat.api.RmrTriplet;
import org.junit.jupiter.api.Test;

class AtomicArgumentsTest {

    private final LmrTriplet local = new LmrTriplet(7, 0x1000, 8);
    private final RmrTriplet remote = new RmrTriplet(9, 0x2008, 8);

    private static String name(int code) {
        return DatReturn.describe(code);
    }

    @Test
    void eightBytesAlignedPass() {
        assertThat(AtomicArguments.check(local, remote, DatReturn.INVALID_ARG3)).isZero();
    }

    @Test
    void aMissingBufferNamesItsArgument() {
        assertThat(name(AtomicArguments.check(null, remote, DatReturn.INVALID_ARG3)))
                .isEqualTo(name(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3)));
        assertThat(name(AtomicArguments.check(local, null, DatReturn.INVALID_ARG3)))
                .isEqualTo(name(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5)));
        assertThat(name(AtomicArguments.check(local, null, DatReturn.INVALID_ARG4)))
                .isEqualTo(name(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6)));
    }

    @Test
    void otherLengthsAreLengthErrors() {
        assertThat(name(AtomicArguments.check(new LmrTriplet(7, 0x1000, 4), remote, DatReturn.INVALID_ARG3)))
                .isEqualTo(name(DatReturn.error(DatReturn.LENGTH_ERROR, DatReturn.NO_SUBTYPE)));
        assertThat(name(AtomicArguments.check(local, new RmrTriplet(9, 0x2008, 16), DatReturn.INVALID_ARG3)))
                .isEqualTo(name(DatReturn.error(DatReturn.LENGTH_ERROR, DatReturn.NO_SUBTYPE)));
    }

    @Test
    void anUnalignedOperandNamesTheRemoteBuffer() {
        assertThat(name(AtomicArguments.check(local, new RmrTriplet(9, 0x2004, 8), DatReturn.INVALID_ARG4)))
                .isEqualTo(name(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6)));
    }
}
