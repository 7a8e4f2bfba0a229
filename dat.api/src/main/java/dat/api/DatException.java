package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A failed DAT operation on the control path, carrying the full {@code DAT_RETURN} code.
 *
 * <p>Control-path methods (open, create, connect, query, free) throw this exception where the C
 * function would return an error code; the data path (post, dequeue, poll) returns the code as an
 * {@code int} instead and allocates nothing. Consumers who prefer exceptions on the data path too
 * can wrap a status code in {@link #check(int)}.
 *
 * <p>The exception is unchecked on purpose: handles are {@link AutoCloseable} and their
 * {@code close()} may fail with a DAT code, which must not force a {@code catch} on every
 * try-with-resources block.
 *
 * <p>The message names the code the way {@code dat_strerror(3DAT)} does, followed by the
 * offending argument and a detail, for example
 * <pre>
 * DAT_INVALID_PARAMETER DAT_INVALID_ARG3 (localIov[2]): segment exceeds the LMR
 * </pre>
 * The parts that are absent are left out: no minor name for {@link DatReturn#NO_SUBTYPE}, no
 * parentheses without an argument, no colon without a detail.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat_error.h>}; see dat_strerror(3DAT).
 */
@ProviderType
public class DatException extends RuntimeException {

    /** Serialization version of this class's fields: the code, the argument and the detail. */
    private static final long serialVersionUID = 1L;

    /** The full DAT return code: class, type and subtype. */
    private final int code;

    /** The name of the offending parameter, or {@code null}. */
    private final String argument;

    /** The free-text detail, or {@code null}. */
    private final String detail;

    /**
     * Creates an exception for a DAT return code.
     *
     * <p>A code without class bits gets {@link DatReturn#CLASS_ERROR} added, so that
     * {@code new DatException(DatReturn.INVALID_HANDLE | DatReturn.INVALID_HANDLE_EP, ...)} and
     * {@code DatReturn.error(INVALID_HANDLE, INVALID_HANDLE_EP)} give the same {@link #code()}; a
     * warning code is kept as it is.
     *
     * @param code the DAT return code; must not be {@link DatReturn#SUCCESS}
     * @param detail a free-text detail for the message, or {@code null}
     * @throws IllegalArgumentException if {@code code} is {@link DatReturn#SUCCESS}
     */
    public DatException(int code, String detail) {
        this(code, null, detail, null);
    }

    /**
     * Creates an exception for a DAT return code caused by another exception, for example an
     * {@code IOException} of a transport. The code is treated as in
     * {@link #DatException(int, String)}.
     *
     * @param code the DAT return code; must not be {@link DatReturn#SUCCESS}
     * @param detail a free-text detail for the message, or {@code null}
     * @param cause the cause, or {@code null}
     * @throws IllegalArgumentException if {@code code} is {@link DatReturn#SUCCESS}
     */
    public DatException(int code, String detail, Throwable cause) {
        this(code, null, detail, cause);
    }

    /**
     * Creates an exception for a DAT return code that names the offending argument. The code is
     * treated as in {@link #DatException(int, String)}.
     *
     * @param code the DAT return code; must not be {@link DatReturn#SUCCESS}
     * @param argument the name of the offending parameter as the caller wrote it, for example
     *     {@code "localIov[2]"}, or {@code null}
     * @param detail a free-text detail for the message, or {@code null}
     * @param cause the cause, or {@code null}
     * @throws IllegalArgumentException if {@code code} is {@link DatReturn#SUCCESS}
     */
    public DatException(int code, String argument, String detail, Throwable cause) {
        int normalized = normalize(code);
        super(message(normalized, argument, detail), cause);
        this.code = normalized;
        this.argument = argument;
        this.detail = detail;
    }

    /**
     * Creates an error exception from a type and a subtype, the usual way to report a failure:
     * {@code throw DatException.of(INVALID_PARAMETER, INVALID_ARG3, "localIov[2]", "...")}.
     *
     * @param type a type constant of {@link DatReturn}, such as {@link DatReturn#INVALID_PARAMETER}
     * @param subtype a subtype constant of {@link DatReturn}, or {@link DatReturn#NO_SUBTYPE}
     * @param argument the name of the offending parameter, or {@code null}
     * @param detail a free-text detail for the message, or {@code null}
     * @return the exception, with code {@code DatReturn.error(type, subtype)}
     * @throws IllegalArgumentException if {@code type} is {@link DatReturn#SUCCESS}
     */
    public static DatException of(int type, int subtype, String argument, String detail) {
        if (DatReturn.typeOf(type) == DatReturn.SUCCESS) {
            throw new IllegalArgumentException("a DatException needs an error type, not SUCCESS");
        }
        return new DatException(DatReturn.error(type, subtype), argument, detail, null);
    }

    /**
     * Throws for an error code and returns any other code unchanged, for consumers who want
     * exceptions from the status codes of the data path:
     * {@code DatException.check(ep.postSend(...))}. Warnings and {@link DatReturn#SUCCESS} pass;
     * what counts as an error is {@link DatReturn#isError(int)}.
     *
     * @param code a DAT return code
     * @return {@code code}, when it is not an error
     * @throws DatException if {@code code} is an error
     */
    public static int check(int code) {
        if (DatReturn.isError(code)) {
            throw new DatException(code, null, null, null);
        }
        return code;
    }

    /**
     * The full DAT return code: class, type and subtype bits.
     *
     * @return the code, never {@link DatReturn#SUCCESS}
     */
    public int code() {
        return code;
    }

    /**
     * The type of the code, comparable with the type constants of {@link DatReturn}.
     *
     * @return {@code DatReturn.typeOf(code())}
     */
    public int type() {
        return DatReturn.typeOf(code);
    }

    /**
     * The subtype of the code, comparable with the subtype constants of {@link DatReturn}.
     *
     * @return {@code DatReturn.subtypeOf(code())}
     */
    public int subtype() {
        return DatReturn.subtypeOf(code);
    }

    /**
     * The symbolic name of the type, as {@code dat_strerror} gives it, for example
     * {@code "DAT_INVALID_PARAMETER"}.
     *
     * @return the type name, or the type bits as eight hexadecimal digits (for example
     *     {@code "0x00150000"}) if DAT 1.2 defines no such type
     */
    public String majorName() {
        return majorName(code);
    }

    /**
     * The symbolic name of the subtype, as {@code dat_strerror} gives it, for example
     * {@code "DAT_INVALID_ARG3"}.
     *
     * @return the subtype name, {@code ""} for {@link DatReturn#NO_SUBTYPE}, or the subtype bits
     *     as four hexadecimal digits (for example {@code "0x0067"}) if DAT 1.2 defines no such
     *     subtype
     */
    public String minorName() {
        return minorName(code);
    }

    /**
     * The name of the offending parameter, as the throwing method's caller wrote it, for example
     * {@code "localIov[2]"}.
     *
     * @return the argument name, or {@code null} if none was given
     */
    public String argument() {
        return argument;
    }

    /**
     * The free-text detail, without the code names that {@link #getMessage()} puts before it.
     *
     * @return the detail, or {@code null} if none was given
     */
    public String detail() {
        return detail;
    }

    /**
     * Adds {@link DatReturn#CLASS_ERROR} to a code that has no class bits.
     *
     * @param code the code as given
     * @return the code with a class
     * @throws IllegalArgumentException if {@code code} is {@link DatReturn#SUCCESS}
     */
    private static int normalize(int code) {
        if (code == DatReturn.SUCCESS) {
            throw new IllegalArgumentException("a DatException needs an error code, not SUCCESS");
        }
        return (code & DatReturn.CLASS_MASK) == 0 ? code | DatReturn.CLASS_ERROR : code;
    }

    /**
     * The type name of a code, or its type bits in hexadecimal.
     *
     * @param code a DAT return code
     * @return the name
     */
    private static String majorName(int code) {
        String name = DatReturn.typeName(code);
        return name != null ? name : DatReturn.hex(DatReturn.typeOf(code));
    }

    /**
     * The subtype name of a code, or its subtype bits in hexadecimal.
     *
     * @param code a DAT return code
     * @return the name, {@code ""} for no subtype
     */
    private static String minorName(int code) {
        String name = DatReturn.subtypeName(code);
        return name != null ? name : String.format("0x%04X", DatReturn.subtypeOf(code));
    }

    /**
     * Formats the message: major name, minor name, argument in parentheses, detail after a colon.
     *
     * @param code the normalized code
     * @param argument the argument name, or {@code null}
     * @param detail the detail, or {@code null}
     * @return the message
     */
    private static String message(int code, String argument, String detail) {
        StringBuilder message = new StringBuilder(80).append(majorName(code));
        String minor = minorName(code);
        if (!minor.isEmpty()) {
            message.append(' ').append(minor);
        }
        if (argument != null) {
            message.append(" (").append(argument).append(')');
        }
        if (detail != null) {
            message.append(": ").append(detail);
        }
        return message.toString();
    }
}
