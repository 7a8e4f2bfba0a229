package dat.karaf.probe;

import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/**
 * Starts the probe: registers {@link DatProbe} in the platform MBean server, where the test reaches
 * it through the JVM's JMX agent.
 */
public final class ProbeActivator implements BundleActivator {

    private DatProbe probe;

    @Override
    public void start(BundleContext context) throws Exception {
        probe = new DatProbe(context);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        server.registerMBean(probe, new ObjectName(DatProbeMXBean.OBJECT_NAME));
    }

    @Override
    public void stop(BundleContext context) throws Exception {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean(new ObjectName(DatProbeMXBean.OBJECT_NAME));
        probe.close();
    }
}
