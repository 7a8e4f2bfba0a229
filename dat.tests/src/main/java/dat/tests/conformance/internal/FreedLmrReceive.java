package dat.tests.conformance.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatEvent;
import dat.api.DtoCompletionStatus;

/**
 * The check of a receive whose LMR was freed after the receive was posted: "Any DTO operation that
 * uses the destroyed LMR after the dat_lmr_free() is completed shall fail and report a protection
 * violation" (dat_lmr_free(3DAT)); the receive uses it when its message lands.
 */
public final class FreedLmrReceive {

    /**
     * A provider whose device completes such a receive with another status declares it as
     * {@code "<status name>: <why>"} under this deviation name.
     */
    public static final String DEVIATION = "recv_freed_lmr";

    private FreedLmrReceive() {
    }

    /**
     * Expects the receive's completion to carry its cookie and {@code DAT_DTO_ERR_LOCAL_PROTECTION},
     * or the status the provider declares under {@link #DEVIATION} (then the test is skipped as declared).
     */
    public static void expectProtectionViolation(IaUnderTest t, DatEvent received, long cookie) {
        assertThat(received.userCookie()).as(t.at("user_cookie of the receive into the freed LMR")).isEqualTo(cookie);
        String status = DtoCompletionStatus.name(received.status());
        if (received.status() != DtoCompletionStatus.ERR_LOCAL_PROTECTION
                && t.declaresStatus(DEVIATION, received.status())) {
            t.skipAsDeclared(DEVIATION, "a message into a receive whose LMR was freed completed with " + status);
        }
        t.check(received.status() == DtoCompletionStatus.ERR_LOCAL_PROTECTION, "a message into a receive whose LMR was freed:"
                + " expected DAT_DTO_ERR_LOCAL_PROTECTION, got " + status);
    }
}
