/**
 * Runtime provider switching: an {@link dat.switching.IaSwitcher} keeps an application's IA on the
 * best provider available under an LDAP filter, and when that provider leaves (hot swap) or its IA
 * fails, lets the application settle the old IA's operations ({@link dat.switching.IaSession#lost})
 * and rebuild on the next best provider ({@link dat.switching.IaSession#open}), reporting each switch
 * ({@link dat.switching.SwitchListener}, and the log). See {@code docs/switching.md}.
 *
 * <p>Consumers import this package with {@code Import-Package: dat.switching;version="[1.0,2)"}.
 */
@Export
@Version("1.0.0")
package dat.switching;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
