/**
 * Typed extensions beyond DAT 1.2 that a provider may offer and a consumer discovers at run time
 * with {@link dat.api.DatHandle#extension(Class)}; the provider's IA factory lists the extension
 * interfaces it offers in the service property {@link dat.api.spi.DatProviderConstants#DAT_EXTENSION}.
 * A handle whose provider does not offer an extension answers {@link java.util.Optional#empty()},
 * never an exception.
 *
 * <ul>
 * <li>The InfiniBand extensions OFED uDAPL 2.0 shipped in {@code dat2/include/dat2/dat_ib_extensions.h}
 *     (extension version 2.0.1): atomic fetch-and-add and compare-and-swap
 *     ({@link dat.api.ext.AtomicEndpoint}), RDMA write with immediate data
 *     ({@link dat.api.ext.ImmediateDataEndpoint}), their event numbers, completion types and memory
 *     privilege ({@link dat.api.ext.IbExtension}).</li>
 * <li>Per-IA counters ({@link dat.api.ext.IaStatistics}, obtained from an
 *     {@link dat.api.InterfaceAdapter}), which the {@code dat.management} bundle publishes as JMX
 *     MBeans; providers maintain them cheaply with {@link dat.api.ext.IaCounters}.</li>
 * </ul>
 *
 * <p>Consumers import this package with {@code Import-Package: dat.api.ext;version="[1.0,2)"};
 * providers implement its {@code @ProviderType} interfaces and import it with
 * {@code version="[1.0,1.1)"}.
 */
@Export
@Version("1.0.0")
package dat.api.ext;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
