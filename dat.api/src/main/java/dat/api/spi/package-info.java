/**
 * The DAT provider SPI: the IA factory service a provider registers, and the service property
 * names that describe it (the Java form of {@code DAT_PROVIDER_INFO}).
 *
 * <p>Providers import this package with {@code Import-Package: dat.api.spi;version="[1.0,1.1)"}.
 */
@Export
@Version("1.0.0")
package dat.api.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
