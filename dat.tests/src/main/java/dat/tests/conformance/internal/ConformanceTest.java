package dat.tests.conformance.internal;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A conformance test: runs once for every IA under test (see {@link IaUnderTestExtension}), each
 * run with its own {@link IaUnderTest} fixture, and is named by its {@code @DisplayName}, which
 * cites the man page and the expectation, for example
 * {@code "dat_ep_post_send(3DAT) DAT_INVALID_STATE: post on an unconnected Endpoint"}.
 *
 * <p>A run that exceeds the time limit fails; the limit is enforced from another thread, so a
 * provider that blocks forever cannot hang the suite.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@TestTemplate
@ExtendWith(IaUnderTestExtension.class)
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public @interface ConformanceTest {
}
