package dat.api;

import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Pins every constant of {@link DatReturn} to its DAT 1.2 value (DAT12-FACTS.md section 3.3,
 * illumos {@code dat_error.h}) and checks {@code strerror} against the strings of libdat's
 * {@code dat_strerror}. The expected values are written out here, not computed from the class.
 */
class DatReturnTest {

    /** Creates the test instance; JUnit calls it. */
    DatReturnTest() {}

    /** The class bits and masks of a DAT_RETURN. */
    private static final Map<String, Object> CLASS_AND_MASKS = Map.ofEntries(
            entry("CLASS_ERROR", 0x80000000),
            entry("CLASS_WARNING", 0x40000000),
            entry("CLASS_SUCCESS", 0x00000000),
            entry("CLASS_MASK", 0xC0000000),
            entry("TYPE_MASK", 0x3FFF0000),
            entry("SUBTYPE_MASK", 0x0000FFFF));

    /** Every DAT_RETURN_TYPE with its 1.2 value, and the major string dat_strerror gives it. */
    private static final List<Type> TYPES = List.of(
            new Type("SUCCESS", 0x00000000, "DAT_SUCCESS"),
            new Type("ABORT", 0x00010000, "DAT_ABORT"),
            new Type("CONN_QUAL_IN_USE", 0x00020000, "DAT_CONN_QUAL_IN_USE"),
            new Type("INSUFFICIENT_RESOURCES", 0x00030000, "DAT_INSUFFICIENT_RESOURCES"),
            new Type("INTERNAL_ERROR", 0x00040000, "DAT_INTERNAL_ERROR"),
            new Type("INVALID_HANDLE", 0x00050000, "DAT_INVALID_HANDLE"),
            new Type("INVALID_PARAMETER", 0x00060000, "DAT_INVALID_PARAMETER"),
            new Type("INVALID_STATE", 0x00070000, "DAT_INVALID_STATE"),
            new Type("LENGTH_ERROR", 0x00080000, "DAT_LENGTH_ERROR"),
            new Type("MODEL_NOT_SUPPORTED", 0x00090000, "DAT_MODEL_NOT_SUPPORTED"),
            // illumos libdat prints the DAT 1.0 alias for this type
            new Type("PROVIDER_NOT_FOUND", 0x000A0000, "DAT_PROVIDER_NOT_FOUND"),
            new Type("NAME_NOT_FOUND", 0x000A0000, "DAT_PROVIDER_NOT_FOUND"),
            new Type("PRIVILEGES_VIOLATION", 0x000B0000, "DAT_PRIVILEGES_VIOLATION"),
            new Type("PROTECTION_VIOLATION", 0x000C0000, "DAT_PROTECTION_VIOLATION"),
            new Type("QUEUE_EMPTY", 0x000D0000, "DAT_QUEUE_EMPTY"),
            new Type("QUEUE_FULL", 0x000E0000, "DAT_QUEUE_FULL"),
            new Type("TIMEOUT_EXPIRED", 0x000F0000, "DAT_TIMEOUT_EXPIRED"),
            new Type("PROVIDER_ALREADY_REGISTERED", 0x00100000, "DAT_PROVIDER_ALREADY_REGISTERED"),
            new Type("PROVIDER_IN_USE", 0x00110000, "DAT_PROVIDER_IN_USE"),
            new Type("INVALID_ADDRESS", 0x00120000, "DAT_INVALID_ADDRESS"),
            new Type("INTERRUPTED_CALL", 0x00130000, "DAT_INTERRUPTED_CALL"),
            new Type("CONN_QUAL_UNAVAILABLE", 0x00140000, "DAT_CONN_QUAL_UNAVAILABLE"),
            new Type("NOT_IMPLEMENTED", 0x0FFF0000, "DAT_NOT_IMPLEMENTED"));

    /** Every DAT_RETURN_SUBTYPE with its 1.2 value; the minor string is "DAT_" + name. */
    private static final List<Map.Entry<String, Integer>> SUBTYPES = List.of(
            entry("NO_SUBTYPE", 0),
            entry("SUB_INTERRUPTED", 1),
            entry("RESOURCE_MEMORY", 2),
            entry("RESOURCE_DEVICE", 3),
            entry("RESOURCE_TEP", 4),
            entry("RESOURCE_TEVD", 5),
            entry("RESOURCE_PROTECTION_DOMAIN", 6),
            entry("RESOURCE_MEMORY_REGION", 7),
            entry("RESOURCE_ERROR_HANDLER", 8),
            entry("RESOURCE_CREDITS", 9),
            entry("RESOURCE_SRQ", 10),
            entry("INVALID_HANDLE_IA", 11),
            entry("INVALID_HANDLE_EP", 12),
            entry("INVALID_HANDLE_LMR", 13),
            entry("INVALID_HANDLE_RMR", 14),
            entry("INVALID_HANDLE_PZ", 15),
            entry("INVALID_HANDLE_PSP", 16),
            entry("INVALID_HANDLE_RSP", 17),
            entry("INVALID_HANDLE_CR", 18),
            entry("INVALID_HANDLE_CNO", 19),
            entry("INVALID_HANDLE_EVD_CR", 20),
            entry("INVALID_HANDLE_EVD_REQUEST", 21),
            entry("INVALID_HANDLE_EVD_RECV", 22),
            entry("INVALID_HANDLE_EVD_CONN", 23),
            entry("INVALID_HANDLE_EVD_ASYNC", 24),
            entry("INVALID_HANDLE_SRQ", 25),
            entry("INVALID_HANDLE1", 26),
            entry("INVALID_HANDLE2", 27),
            entry("INVALID_HANDLE3", 28),
            entry("INVALID_HANDLE4", 29),
            entry("INVALID_HANDLE5", 30),
            entry("INVALID_HANDLE6", 31),
            entry("INVALID_HANDLE7", 32),
            entry("INVALID_HANDLE8", 33),
            entry("INVALID_HANDLE9", 34),
            entry("INVALID_HANDLE10", 35),
            entry("INVALID_ARG1", 36),
            entry("INVALID_ARG2", 37),
            entry("INVALID_ARG3", 38),
            entry("INVALID_ARG4", 39),
            entry("INVALID_ARG5", 40),
            entry("INVALID_ARG6", 41),
            entry("INVALID_ARG7", 42),
            entry("INVALID_ARG8", 43),
            entry("INVALID_ARG9", 44),
            entry("INVALID_ARG10", 45),
            entry("INVALID_STATE_EP_UNCONNECTED", 46),
            entry("INVALID_STATE_EP_ACTCONNPENDING", 47),
            entry("INVALID_STATE_EP_PASSCONNPENDING", 48),
            entry("INVALID_STATE_EP_TENTCONNPENDING", 49),
            entry("INVALID_STATE_EP_CONNECTED", 50),
            entry("INVALID_STATE_EP_DISCONNECTED", 51),
            entry("INVALID_STATE_EP_RESERVED", 52),
            entry("INVALID_STATE_EP_COMPLPENDING", 53),
            entry("INVALID_STATE_EP_DISCPENDING", 54),
            entry("INVALID_STATE_EP_PROVIDERCONTROL", 55),
            entry("INVALID_STATE_EP_NOTREADY", 56),
            entry("INVALID_STATE_EP_RECV_WATERMARK", 57),
            entry("INVALID_STATE_EP_PZ", 58),
            entry("INVALID_STATE_EP_EVD_REQUEST", 59),
            entry("INVALID_STATE_EP_EVD_RECV", 60),
            entry("INVALID_STATE_EP_EVD_CONNECT", 61),
            entry("INVALID_STATE_EP_UNCONFIGURED", 62),
            entry("INVALID_STATE_EP_UNCONFRESERVED", 63),
            entry("INVALID_STATE_EP_UNCONFPASSIVE", 64),
            entry("INVALID_STATE_EP_UNCONFTENTATIVE", 65),
            entry("INVALID_STATE_CNO_IN_USE", 66),
            entry("INVALID_STATE_CNO_DEAD", 67),
            entry("INVALID_STATE_EVD_OPEN", 68),
            entry("INVALID_STATE_EVD_ENABLED", 69),
            entry("INVALID_STATE_EVD_DISABLED", 70),
            entry("INVALID_STATE_EVD_WAITABLE", 71),
            entry("INVALID_STATE_EVD_UNWAITABLE", 72),
            entry("INVALID_STATE_EVD_IN_USE", 73),
            entry("INVALID_STATE_EVD_CONFIG_NOTIFY", 74),
            entry("INVALID_STATE_EVD_CONFIG_SOLICITED", 75),
            entry("INVALID_STATE_EVD_CONFIG_THRESHOLD", 76),
            entry("INVALID_STATE_EVD_WAITER", 77),
            entry("INVALID_STATE_EVD_ASYNC", 78),
            entry("INVALID_STATE_IA_IN_USE", 79),
            entry("INVALID_STATE_LMR_IN_USE", 80),
            entry("INVALID_STATE_LMR_FREE", 81),
            entry("INVALID_STATE_PZ_IN_USE", 82),
            entry("INVALID_STATE_PZ_FREE", 83),
            entry("INVALID_STATE_SRQ_OPERATIONAL", 84),
            entry("INVALID_STATE_SRQ_ERROR", 85),
            entry("INVALID_STATE_SRQ_IN_USE", 86),
            entry("PRIVILEGES_READ", 87),
            entry("PRIVILEGES_WRITE", 88),
            entry("PRIVILEGES_RDMA_READ", 89),
            entry("PRIVILEGES_RDMA_WRITE", 90),
            entry("PROTECTION_READ", 91),
            entry("PROTECTION_WRITE", 92),
            entry("PROTECTION_RDMA_READ", 93),
            entry("PROTECTION_RDMA_WRITE", 94),
            entry("INVALID_ADDRESS_UNSUPPORTED", 95),
            entry("INVALID_ADDRESS_UNREACHABLE", 96),
            entry("INVALID_ADDRESS_MALFORMED", 97),
            entry("NAME_NOT_REGISTERED", 98),
            entry("MAJOR_NOT_FOUND", 99),
            entry("MINOR_NOT_FOUND", 100),
            entry("THREAD_SAFETY_NOT_FOUND", 101),
            entry("INVALID_RO_COOKIE", 102));

    /**
     * A type constant of the table.
     *
     * @param name the Java constant name
     * @param value the DAT 1.2 value
     * @param major the major string of dat_strerror
     */
    private record Type(String name, int value, String major) {}

    /**
     * The expected minor string of a subtype.
     *
     * @param subtype an entry of {@link #SUBTYPES}
     * @return "" for NO_SUBTYPE, else "DAT_" and the name
     */
    private static String minor(Map.Entry<String, Integer> subtype) {
        return subtype.getValue() == 0 ? "" : "DAT_" + subtype.getKey();
    }

    /** The tables cover every public constant of DatReturn, each with its exact value. */
    @Test
    void everyPublicConstantHasItsDat12Value() {
        Map<String, Object> expected = new LinkedHashMap<>(CLASS_AND_MASKS);
        TYPES.forEach(type -> expected.put(type.name(), type.value()));
        SUBTYPES.forEach(subtype -> expected.put(subtype.getKey(), subtype.getValue()));

        assertThat(Constants.of(DatReturn.class)).containsExactlyInAnyOrderEntriesOf(expected);
    }

    /** The tables themselves are complete: 22 types plus one alias, 103 subtypes 0..102. */
    @Test
    void tablesAreComplete() {
        assertThat(TYPES).hasSize(23);
        assertThat(SUBTYPES).hasSize(103);
        for (int i = 0; i < SUBTYPES.size(); i++) {
            assertThat(SUBTYPES.get(i).getValue()).as(SUBTYPES.get(i).getKey()).isEqualTo(i);
        }
    }

    /** The types and subtypes that differ between DAT 1.2 and 2.0 have their 1.2 values. */
    @Test
    void dat12NumberingNotDat20() {
        assertThat(DatReturn.NOT_IMPLEMENTED).isEqualTo(0x0FFF0000).isNotEqualTo(0x3FFF0000);
        assertThat(DatReturn.INVALID_HANDLE1).isEqualTo(26);
        assertThat(DatReturn.INVALID_ARG1).isEqualTo(36);
        assertThat(DatReturn.INVALID_STATE_EP_PZ).isEqualTo(58);
        assertThat(DatReturn.NAME_NOT_REGISTERED).isEqualTo(98);
        assertThat(DatReturn.THREAD_SAFETY_NOT_FOUND).isEqualTo(101);
        assertThat(DatReturn.NAME_NOT_FOUND).isEqualTo(DatReturn.PROVIDER_NOT_FOUND);
        // the 2.0 code of PROVIDER_NOT_FOUND | NAME_NOT_REGISTERED reads differently in 1.2
        assertThat(DatReturn.strerror(0x800A0064).minor()).isEqualTo("DAT_MINOR_NOT_FOUND");
    }

    /** The worked examples of DAT12-FACTS section 3.3. */
    @Test
    void workedExamples() {
        assertThat(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1))
                .isEqualTo(0x80060024);
        assertThat(DatReturn.error(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_IA))
                .isEqualTo(0x8005000B);
        assertThat(DatReturn.error(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY))
                .isEqualTo(0x80030002);
        assertThat(DatReturn.error(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED))
                .isEqualTo(0x800A0062);
        assertThat(DatReturn.error(DatReturn.QUEUE_EMPTY, DatReturn.NO_SUBTYPE))
                .isEqualTo(0x800D0000);

        assertThat(DatReturn.strerror(0x80060024))
                .isEqualTo(new DatReturn.Strerror("DAT_INVALID_PARAMETER", "DAT_INVALID_ARG1"));
        assertThat(DatReturn.strerror(0x8005000B))
                .isEqualTo(new DatReturn.Strerror("DAT_INVALID_HANDLE", "DAT_INVALID_HANDLE_IA"));
        assertThat(DatReturn.strerror(0x80030002)).isEqualTo(
                new DatReturn.Strerror("DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY"));
        assertThat(DatReturn.strerror(0x800A0062))
                .isEqualTo(new DatReturn.Strerror("DAT_PROVIDER_NOT_FOUND", "DAT_NAME_NOT_REGISTERED"));
        assertThat(DatReturn.strerror(0x800D0000))
                .isEqualTo(new DatReturn.Strerror("DAT_QUEUE_EMPTY", ""));
    }

    /** strerror gives every type its major string, whatever the class bits. */
    @Test
    void strerrorNamesEveryType() {
        for (Type type : TYPES) {
            for (int classBits : new int[] {0x80000000, 0x40000000, 0x00000000}) {
                int code = classBits | type.value();
                assertThat(DatReturn.strerror(code))
                        .as("%s 0x%08X", type.name(), code)
                        .isEqualTo(new DatReturn.Strerror(type.major(), ""));
                assertThat(DatReturn.typeName(code)).isEqualTo(type.major());
            }
        }
    }

    /** strerror gives every subtype its minor string, with any type. */
    @Test
    void strerrorNamesEverySubtype() {
        for (Map.Entry<String, Integer> subtype : SUBTYPES) {
            for (Type type : TYPES) {
                int code = 0x80000000 | type.value() | subtype.getValue();
                assertThat(DatReturn.strerror(code))
                        .as("%s | %s", type.name(), subtype.getKey())
                        .isEqualTo(new DatReturn.Strerror(type.major(), minor(subtype)));
            }
            assertThat(DatReturn.subtypeName(subtype.getValue())).isEqualTo(minor(subtype));
        }
    }

    /** Warnings are named like errors: dat_strerror ignores the class bits. */
    @Test
    void strerrorOfWarnings() {
        int warning =
                DatReturn.warning(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_EP_CONNECTED);
        assertThat(warning).isEqualTo(0x40070032);
        assertThat(DatReturn.strerror(warning)).isEqualTo(
                new DatReturn.Strerror("DAT_INVALID_STATE", "DAT_INVALID_STATE_EP_CONNECTED"));
        assertThat(DatReturn.strerror(0x40060000))
                .isEqualTo(new DatReturn.Strerror("DAT_INVALID_PARAMETER", ""));
    }

    /** DAT_SUCCESS gives the major "DAT_SUCCESS" and an empty minor. */
    @Test
    void strerrorOfSuccess() {
        assertThat(DatReturn.strerror(0)).isEqualTo(new DatReturn.Strerror("DAT_SUCCESS", ""));
        assertThat(DatReturn.strerror(DatReturn.SUCCESS).major()).isEqualTo("DAT_SUCCESS");
        assertThat(DatReturn.strerror(DatReturn.SUCCESS).minor()).isEmpty();
    }

    /** An undefined type or subtype makes strerror fail with DAT_INVALID_PARAMETER. */
    @Test
    void strerrorRejectsUndefinedCodes() {
        int[] undefined = {
            0x80150000, // DAT 2.0 DAT_RESERVED_LMR
            0x3FFF0000, // DAT 2.0 DAT_NOT_IMPLEMENTED
            0x80060067, // subtype 103, one past INVALID_RO_COOKIE
            0x8006FFFF, // largest subtype
            0xBFFF0000, // largest type
            0x00150024, // undefined type, defined subtype
        };
        for (int code : undefined) {
            DatException e =
                    catchThrowableOfType(DatException.class, () -> DatReturn.strerror(code));
            assertThat(e).as("0x%08X", code).isNotNull();
            assertThat(e.type()).isEqualTo(0x00060000);
            assertThat(e.subtype()).isEqualTo(36);
            assertThat(e.code()).isEqualTo(0x80060024);
            assertThat(e.argument()).isEqualTo("code");
            assertThat(e.getMessage()).contains(String.format("0x%08X", code));
            assertThat(DatReturn.isDefined(code)).isFalse();
        }
        assertThat(DatReturn.typeName(0x00150000)).isNull();
        assertThat(DatReturn.typeName(0x3FFF0000)).isNull();
        assertThat(DatReturn.subtypeName(103)).isNull();
        assertThat(DatReturn.subtypeName(0xFFFF)).isNull();
    }

    /** Types and subtypes are looked up independently, as in libdat. */
    @Test
    void typeAndSubtypeAreIndependent() {
        assertThat(DatReturn.strerror(0x80060002))
                .isEqualTo(new DatReturn.Strerror("DAT_INVALID_PARAMETER", "DAT_RESOURCE_MEMORY"));
        assertThat(DatReturn.isDefined(0x80060002)).isTrue();
    }

    /** Name lookups hand out the same string instances: they allocate nothing. */
    @Test
    void nameLookupsDoNotAllocate() {
        assertThat(DatReturn.typeName(0x80060024)).isSameAs(DatReturn.typeName(0x00060000));
        assertThat(DatReturn.subtypeName(0x80060024)).isSameAs(DatReturn.subtypeName(0x40050024));
        assertThat(DatReturn.typeName(0x8FFF0000)).isSameAs(DatReturn.typeName(0x0FFF0001));
    }

    /** error, warning, typeOf and subtypeOf are the C macros. */
    @Test
    void buildingAndTakingApart() {
        assertThat(DatReturn.error(0x00070000, 50)).isEqualTo(0x80070032);
        assertThat(DatReturn.warning(0x00070000, 50)).isEqualTo(0x40070032);
        assertThat(DatReturn.typeOf(0x80070032)).isEqualTo(0x00070000);
        assertThat(DatReturn.subtypeOf(0x80070032)).isEqualTo(50);
        assertThat(DatReturn.typeOf(0xFFFFFFFF)).isEqualTo(0x3FFF0000);
        assertThat(DatReturn.subtypeOf(0xFFFFFFFF)).isEqualTo(0xFFFF);
        assertThat(DatReturn.typeOf(0x8FFF0000)).isEqualTo(DatReturn.NOT_IMPLEMENTED);
    }

    /** Success, warning and error: the documented cases. */
    @Test
    void classification() {
        assertThat(DatReturn.isSuccess(0)).isTrue();
        assertThat(DatReturn.isError(0)).isFalse();
        assertThat(DatReturn.isWarning(0)).isFalse();

        assertThat(DatReturn.isError(0x80060024)).isTrue();
        assertThat(DatReturn.isError(0x800D0000)).isTrue();
        assertThat(DatReturn.isWarning(0x80060024)).isFalse();

        assertThat(DatReturn.isWarning(0x40070032)).isTrue();
        assertThat(DatReturn.isError(0x40070032)).isFalse();
        assertThat(DatReturn.isSuccess(0x40070032)).isFalse();

        // the reference-code slip: a type without the class bit still is a failure
        assertThat(DatReturn.isError(0x00050013)).isTrue();
        // both class bits: an error, not a warning
        assertThat(DatReturn.isError(0xC0060024)).isTrue();
        assertThat(DatReturn.isWarning(0xC0060024)).isFalse();
        // the error class alone, type SUCCESS
        assertThat(DatReturn.isError(0x80000000)).isTrue();
    }

    /** Exactly one of isSuccess, isWarning, isError holds for any int. */
    @Test
    void classificationIsAPartition() {
        SplittableRandom random = new SplittableRandom(12);
        int[] edges = {0, 1, -1, 0x80000000, 0x40000000, 0xC0000000, 0x7FFFFFFF, 0x3FFFFFFF};
        for (int code : edges) {
            assertExactlyOneClass(code);
        }
        for (int i = 0; i < 10_000; i++) {
            assertExactlyOneClass(random.nextInt());
        }
    }

    /**
     * Asserts that a code is exactly one of success, warning and error.
     *
     * @param code the code
     */
    private static void assertExactlyOneClass(int code) {
        int count = (DatReturn.isSuccess(code) ? 1 : 0) + (DatReturn.isWarning(code) ? 1 : 0)
                + (DatReturn.isError(code) ? 1 : 0);
        assertThat(count).as("0x%08X", code).isEqualTo(1);
    }

    /** describe: MAJOR(MINOR), MAJOR alone, or hexadecimal; never throws. */
    @Test
    void describe() {
        assertThat(DatReturn.describe(0x80060026))
                .isEqualTo("DAT_INVALID_PARAMETER(DAT_INVALID_ARG3)");
        assertThat(DatReturn.describe(0x8005000B))
                .isEqualTo("DAT_INVALID_HANDLE(DAT_INVALID_HANDLE_IA)");
        assertThat(DatReturn.describe(0x800D0000)).isEqualTo("DAT_QUEUE_EMPTY");
        assertThat(DatReturn.describe(0)).isEqualTo("DAT_SUCCESS");
        assertThat(DatReturn.describe(0x800A0062))
                .isEqualTo("DAT_PROVIDER_NOT_FOUND(DAT_NAME_NOT_REGISTERED)");
        assertThat(DatReturn.describe(0x8FFF0000)).isEqualTo("DAT_NOT_IMPLEMENTED");
        assertThat(DatReturn.describe(0x80150000)).isEqualTo("0x80150000");
        assertThat(DatReturn.describe(0x8006FFFF)).isEqualTo("0x8006FFFF");
        assertThat(DatReturn.describe(0xFFFFFFFF)).isEqualTo("0xFFFFFFFF");
    }

    /** The Strerror record exposes its two strings. */
    @Test
    void strerrorRecord() {
        DatReturn.Strerror strerror = new DatReturn.Strerror("A", "B");
        assertThat(strerror.major()).isEqualTo("A");
        assertThat(strerror.minor()).isEqualTo("B");
        assertThatThrownBy(() -> DatReturn.strerror(0x00150000)).isInstanceOf(DatException.class)
                .hasMessageStartingWith("DAT_INVALID_PARAMETER DAT_INVALID_ARG1 (code): ");
    }
}
