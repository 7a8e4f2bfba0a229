package dat.tests.conformance.selftest;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatRegistry;
import dat.tests.conformance.ConformanceReport;
import dat.tests.conformance.ConformanceSuite;
import dat.tests.conformance.ConformanceReport.Outcome;
import dat.tests.conformance.ConformanceReport.Result;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.junit5.service.ServiceExtension;

/**
 * Proof that the conformance suite can fail: run against {@code broken0} (dat.tests.broken, which
 * reports receive lengths one byte too long, accepts IOV segments outside their LMR, and reports a
 * receive too small for its message with a status other than the deviation it declares), the
 * suite's DTO tests fail, with messages that name the man page and the expectation; the same tests
 * pass against the provider broken0 wraps.
 */
@ExtendWith(ServiceExtension.class)
class BrokenProviderTest {

    @Test
    @Timeout(120)
    void suiteFailsAgainstTheBrokenProvider(@InjectService(timeout = 10_000) DatRegistry registry) {
        ConformanceReport report = ConformanceSuite.run(List.of("broken0"), "^dto/", null);
        System.out.print(report.table());
        System.out.print(report.failureReport());

        assertThat(report.count(Outcome.FAILED)).as("failed runs against broken0").isPositive();
        assertThat(report.count(Outcome.PASSED)).as("the tests broken0's faults do not touch still pass").isPositive();
        assertThat(report.failures()).extracting(Result::displayName)
                .allMatch(name -> name.endsWith("[broken0]"), "every failure is a run against broken0");
        assertThat(report.failures())
                .as("the IOV outside its LMR is reported, naming dat_ep_post_send(3DAT) and DAT_INVALID_PARAMETER")
                .anySatisfy(failure -> {
                    assertThat(failure.displayName()).startsWith("dat_ep_post_send(3DAT) DAT_INVALID_PARAMETER");
                    assertThat(failure.message()).contains("dat_ep_post_send(3DAT)").contains("expected DAT_INVALID_PARAMETER, got DAT_SUCCESS");
                })
                .as("the wrong receive length is reported, naming the page and transferred_length")
                .anySatisfy(failure -> assertThat(failure.message()).containsPattern("dat_ep_post_(send|recv)\\(3DAT\\) DAT_SUCCESS")
                        .contains("transferred_length"))
                .as("a declared deviation that does not match what the provider does is a failure, not a skip")
                .anySatisfy(failure -> assertThat(failure.message()).contains("dat_ep_post_recv(3DAT)")
                        .contains("expected DAT_DTO_LENGTH_ERROR (DAT_DTO_ERR_LOCAL_LENGTH), got DAT_DTO_ERR_LOCAL_EP"));
    }

    @Test
    @Timeout(120)
    void theSameTestsPassAgainstTheWrappedProvider(@InjectService(timeout = 10_000) DatRegistry registry) {
        ConformanceReport report = ConformanceSuite.run(List.of("sim0"), "^dto/", null);
        assertThat(report.failureReport()).as("failures of the DTO tests against sim0").isEmpty();
        assertThat(report.count(Outcome.PASSED)).as("DTO tests passed against sim0").isPositive();
    }
}
