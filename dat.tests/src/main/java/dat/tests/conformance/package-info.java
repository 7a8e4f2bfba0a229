/**
 * The DAT conformance suite, run from code: {@link dat.tests.conformance.ConformanceSuite} runs the
 * suite's tests (this bundle's {@code Test-Cases}) with the JUnit Platform Launcher against the IAs
 * under test and returns a {@link dat.tests.conformance.ConformanceReport}. The same tests run
 * inside bnd's OSGi tester, and through the {@code dat:test} Gogo command.
 *
 * <p>Import with {@code Import-Package: dat.tests.conformance;version="[1.0,2)"}.
 */
@Export
@Version("1.2.0")
package dat.tests.conformance;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
