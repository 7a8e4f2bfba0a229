package dat.tests.conformance.internal;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.tests.conformance.ConformanceSuite;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Runs each {@link ConformanceTest} once per IA under test, in the manner of the OSGi JDBC TCK's
 * run-per-registered-factory: the IA names are those of the configuration parameter or framework
 * property {@value ConformanceSuite#IA_PARAMETER} (comma separated), or else every IA name of every
 * registered {@code DatIaFactory} service whose service property
 * {@value ConformanceSuite#SERVICE_PROPERTY} is not {@code false}.
 *
 * <p>Each run gets a fresh {@link IaUnderTest}, which opens IAs through the {@code DatRegistry}
 * service only (never through a factory) and closes them when the run ends. A
 * {@link DatException} escaping a test becomes a failure whose message names the test's man page
 * and expectation; {@link DatReturn#NOT_IMPLEMENTED} in particular is a failure, because a provider
 * declares what it does not support in its attributes, and the suite skips those tests itself.
 */
public final class IaUnderTestExtension implements TestTemplateInvocationContextProvider {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(IaUnderTestExtension.class);

    /** Creates the extension; JUnit instantiates it from {@link ConformanceTest}. */
    public IaUnderTestExtension() {
    }

    @Override
    public boolean supportsTestTemplate(ExtensionContext context) {
        return true;
    }

    @Override
    public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
        TestEnvironment environment = context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(TestEnvironment.class.getName(), key -> TestEnvironment.create(context), TestEnvironment.class);
        List<String> iaNames = environment.iaNames();
        if (iaNames.isEmpty()) {
            throw new IllegalStateException("no IA under test: no DatIaFactory service with " + ConformanceSuite.SERVICE_PROPERTY
                    + " != false registered an IA name within " + TestEnvironment.DISCOVERY_WAIT_SECONDS + " s, and "
                    + ConformanceSuite.IA_PARAMETER + " is not set");
        }
        String template = context.getDisplayName();
        return iaNames.stream().map(iaName -> new Invocation(environment, iaName, template));
    }

    /** One run of a conformance test against one IA. */
    private record Invocation(TestEnvironment environment, String iaName, String template) implements TestTemplateInvocationContext {

        @Override
        public String getDisplayName(int invocationIndex) {
            return template + " [" + iaName + "]";
        }

        @Override
        public List<Extension> getAdditionalExtensions() {
            return List.of(new FixtureResolver(environment, iaName));
        }
    }

    /**
     * Gives the test its {@link IaUnderTest}, closes it when the run ends (the store closes
     * {@link AutoCloseable} values), and turns DAT errors escaping the test into failures that cite
     * the test.
     */
    private record FixtureResolver(TestEnvironment environment, String iaName)
            implements ParameterResolver, TestExecutionExceptionHandler {

        @Override
        public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
            return parameterContext.getParameter().getType() == IaUnderTest.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
            IaUnderTest fixture = new IaUnderTest(environment, iaName, extensionContext.getDisplayName());
            extensionContext.getStore(NAMESPACE).put(IaUnderTest.class.getName(), fixture);
            return fixture;
        }

        @Override
        public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
            if (throwable instanceof DatException e && !(throwable.getCause() instanceof TestAbortedException)) {
                String hint = switch (e.type()) {
                    case DatReturn.NOT_IMPLEMENTED -> " (a conformant provider implements the operation, or declares the"
                            + " feature unsupported in its attributes so that the suite skips it)";
                    case DatReturn.MODEL_NOT_SUPPORTED -> " (the provider's attributes do not declare this feature unsupported)";
                    default -> "";
                };
                AssertionFailedError failure = new AssertionFailedError(context.getDisplayName()
                        + ": a call the test relies on failed with " + DatReturn.describe(e.code()) + hint + ": " + e.getMessage(), e);
                throw failure;
            }
            throw throwable;
        }
    }
}
