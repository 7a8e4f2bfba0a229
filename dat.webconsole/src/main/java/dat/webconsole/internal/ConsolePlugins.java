package dat.webconsole.internal;

import dat.api.DatRegistry;
import dat.api.spi.DatProviderStatus;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Registers the DAT page with the web consoles the framework can have: as a
 * {@code jakarta.servlet.Servlet} (Apache Felix Web Console 5) and as a {@code javax.servlet.Servlet}
 * (Karaf's webconsole feature, built on Felix Web Console 4), each where this bundle's optional
 * import of that API is wired. Both serve the same page and data.
 */
@Component(immediate = true)
public final class ConsolePlugins {

    private final DatRegistry registry;
    private final List<DatProviderStatus> unavailable = new CopyOnWriteArrayList<>();
    private final List<ServiceRegistration<?>> registrations = new ArrayList<>();

    /**
     * Registers the page.
     *
     * @param context this bundle's context
     * @param registry the registry the page shows
     */
    @Activate
    public ConsolePlugins(BundleContext context, @Reference DatRegistry registry) {
        this.registry = registry;
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("felix.webconsole.label", ConsolePage.LABEL);
        properties.put("felix.webconsole.title", ConsolePage.TITLE);
        properties.put("felix.webconsole.category", ConsolePage.CATEGORY);
        if (available("jakarta.servlet.http.HttpServlet")) {
            registrations.add(context.registerService("jakarta.servlet.Servlet", new JakartaPlugin(this::data), properties));
        }
        if (available("javax.servlet.http.HttpServlet")) {
            registrations.add(context.registerService("javax.servlet.Servlet", new JavaxPlugin(this::data), properties));
        }
    }

    /** @param status a provider that offers no IA */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC, unbind = "removeStatus")
    void addStatus(DatProviderStatus status) {
        unavailable.add(status);
    }

    /** @param status a provider status that went away */
    void removeStatus(DatProviderStatus status) {
        unavailable.remove(status);
    }

    @Deactivate
    void deactivate() {
        for (ServiceRegistration<?> registration : registrations) {
            try {
                registration.unregister();
            } catch (IllegalStateException e) {
                // gone with the bundle already
            }
        }
    }

    private com.fasterxml.jackson.databind.node.ObjectNode data() {
        return ConsoleData.of(registry, unavailable, ManagementFactory.getPlatformMBeanServer());
    }

    /** Whether this bundle sees a class of an optionally imported API (its import is wired). */
    private static boolean available(String className) {
        try {
            Class.forName(className, false, ConsolePlugins.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
