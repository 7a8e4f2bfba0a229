/**
 * The management interface of open DAT IAs: {@link dat.management.IaStatisticsMXBean}, the JMX
 * MXBean the {@code dat.management} bundle registers in the platform MBean server for every open IA
 * whose provider keeps {@link dat.api.ext.IaStatistics}, named
 * {@code dat:type=IA,name=<ia name>,instance=<n>}. JMX clients (jconsole, Karaf's {@code jmx}
 * tools, a {@link javax.management.JMX#newMXBeanProxy} in Java) read it without any DAT class;
 * Java clients in the same JVM may use this interface for a typed proxy.
 *
 * <p>Import with {@code Import-Package: dat.management;version="[1.0,2)"}.
 */
@Export
@Version("1.0.0")
package dat.management;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
