/**
 * The DAT 1.2 consumer API: the uDAPL interface (Solaris {@code libdat(3LIB)}, OFED dapl) in Java.
 *
 * <p>Consumers import this package with {@code Import-Package: dat.api;version="[1.0,2)"};
 * providers implement its {@code @ProviderType} interfaces and import it with
 * {@code version="[1.0,1.1)"}.
 */
@Export
@Version("1.0.0")
package dat.api;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
