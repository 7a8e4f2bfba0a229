/**
 * The DAT registry outside OSGi ({@link dat.registry.DatRegistries}) and the static registry's
 * parser ({@link dat.registry.DatConf}). Inside OSGi, consumers use the {@link dat.api.DatRegistry}
 * service this bundle registers, and need not import this package.
 *
 * <p>Import it with {@code Import-Package: dat.registry;version="[1.0,2)"}.
 */
@Export
@Version("1.0.0")
package dat.registry;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
