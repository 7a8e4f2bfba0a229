package dat.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;

/** Checks {@link DatException}: code, names, message format, {@code check} and serialization. */
class DatExceptionTest {

    /** Creates the test instance; JUnit calls it. */
    DatExceptionTest() {}

    /** The message has all four parts: major, minor, argument, detail. */
    @Test
    void messageWithAllParts() {
        DatException e = DatException.of(0x00060000, 38, "localIov[2]", "segment exceeds the LMR");

        assertThat(e.getMessage()).isEqualTo(
                "DAT_INVALID_PARAMETER DAT_INVALID_ARG3 (localIov[2]): segment exceeds the LMR");
        assertThat(e.code()).isEqualTo(0x80060026);
        assertThat(e.type()).isEqualTo(0x00060000);
        assertThat(e.subtype()).isEqualTo(38);
        assertThat(e.majorName()).isEqualTo("DAT_INVALID_PARAMETER");
        assertThat(e.minorName()).isEqualTo("DAT_INVALID_ARG3");
        assertThat(e.argument()).isEqualTo("localIov[2]");
        assertThat(e.detail()).isEqualTo("segment exceeds the LMR");
    }

    /** Absent parts are left out of the message. */
    @Test
    void messageWithoutOptionalParts() {
        assertThat(new DatException(0x800D0000, null).getMessage()).isEqualTo("DAT_QUEUE_EMPTY");
        assertThat(new DatException(0x800D0000, "empty").getMessage())
                .isEqualTo("DAT_QUEUE_EMPTY: empty");
        assertThat(DatException.of(0x00050000, 12, "ep", null).getMessage())
                .isEqualTo("DAT_INVALID_HANDLE DAT_INVALID_HANDLE_EP (ep)");
        assertThat(DatException.of(0x00070000, 0, null, "busy").getMessage())
                .isEqualTo("DAT_INVALID_STATE: busy");
        assertThat(new DatException(0x800A0062, "no ia 'x'").getMessage())
                .isEqualTo("DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED: no ia 'x'");
    }

    /** A code without a name shows its bits in hexadecimal. */
    @Test
    void undefinedCodesAreShownInHex() {
        DatException e = new DatException(0x80150067, "from a 2.0 peer");

        assertThat(e.majorName()).isEqualTo("0x00150000");
        assertThat(e.minorName()).isEqualTo("0x0067");
        assertThat(e.getMessage()).isEqualTo("0x00150000 0x0067: from a 2.0 peer");
        assertThat(new DatException(0x80060067, null).getMessage())
                .isEqualTo("DAT_INVALID_PARAMETER 0x0067");
    }

    /** of builds the error code from type and subtype. */
    @Test
    void ofBuildsAnErrorCode() {
        assertThat(DatException.of(0x00030000, 2, null, null).code()).isEqualTo(0x80030002);
        assertThat(DatException.of(0x0FFF0000, 0, null, null).code()).isEqualTo(0x8FFF0000);
        assertThat(DatException.of(0x0FFF0000, 0, null, null).majorName())
                .isEqualTo("DAT_NOT_IMPLEMENTED");
    }

    /** An exception cannot report DAT_SUCCESS. */
    @Test
    void successIsRejected() {
        assertThatThrownBy(() -> new DatException(0, "ok"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DatException.of(0, 36, null, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A code without class bits gets the error class; warnings keep theirs. */
    @Test
    void classIsNormalized() {
        assertThat(new DatException(0x00050013, null).code()).isEqualTo(0x80050013);
        assertThat(new DatException(0x80050013, null).code()).isEqualTo(0x80050013);
        assertThat(new DatException(0x40070032, null).code()).isEqualTo(0x40070032);
        assertThat(new DatException(0x00050013, null).minorName())
                .isEqualTo("DAT_INVALID_HANDLE_CNO");
    }

    /** check passes success and warnings and throws for errors. */
    @Test
    void check() {
        assertThat(DatException.check(0)).isZero();
        assertThat(DatException.check(0x40070032)).isEqualTo(0x40070032);
        assertThatThrownBy(() -> DatException.check(0x800D0000))
                .isInstanceOfSatisfying(DatException.class, e -> {
                    assertThat(e.code()).isEqualTo(0x800D0000);
                    assertThat(e.getMessage()).isEqualTo("DAT_QUEUE_EMPTY");
                    assertThat(e.argument()).isNull();
                    assertThat(e.detail()).isNull();
                });
        assertThatThrownBy(() -> DatException.check(0x00050013))
                .isInstanceOfSatisfying(DatException.class,
                        e -> assertThat(e.code()).isEqualTo(0x80050013));
    }

    /** The cause is kept. */
    @Test
    void cause() {
        IOException io = new IOException("reset by peer");
        DatException e = new DatException(0x80040000, "transport", io);

        assertThat(e).hasCause(io).hasMessage("DAT_INTERNAL_ERROR: transport");
        assertThat(new DatException(0x80040000, "ep", "closed", io))
                .hasCause(io).hasMessage("DAT_INTERNAL_ERROR (ep): closed");
    }

    /** Unchecked, so close() in try-with-resources needs no catch clause. */
    @Test
    void isUncheckedForTryWithResources() {
        AutoCloseableHandle handle = new AutoCloseableHandle();
        assertThatThrownBy(() -> {
            try (handle) {
                assertThat(handle).isNotNull();
            }
        }).isInstanceOf(RuntimeException.class).isInstanceOf(DatException.class);
    }

    /** A handle whose close fails with a DAT error. */
    private static final class AutoCloseableHandle implements AutoCloseable {

        /** Creates an open handle. */
        AutoCloseableHandle() {}

        /** Fails as a close with outstanding children would. */
        @Override
        public void close() {
            throw DatException.of(
                    DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_PZ_IN_USE, null, null);
        }
    }

    /**
     * Code, argument, detail and message survive serialization.
     *
     * @throws IOException never: the streams are in memory
     * @throws ClassNotFoundException never: the class is on the class path
     */
    @Test
    void serializable() throws IOException, ClassNotFoundException {
        DatException original = DatException.of(0x00060000, 38, "localIov[2]", "too long");

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(original);
        }
        DatException copy;
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            copy = (DatException) in.readObject();
        }

        assertThat(copy.code()).isEqualTo(0x80060026);
        assertThat(copy.argument()).isEqualTo("localIov[2]");
        assertThat(copy.detail()).isEqualTo("too long");
        assertThat(copy.getMessage()).isEqualTo(original.getMessage());
    }
}
