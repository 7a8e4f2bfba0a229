package dat.tests.broken.internal;

import dat.api.DatConstants;
import dat.api.DatRegistry;
import dat.api.EventDispatcher;
import dat.api.InterfaceAdapter;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The factory of IA {@code broken0}: it opens the target IA (framework property
 * {@value #TARGET_PROPERTY}, default {@value #DEFAULT_TARGET}) through the registry and hands out
 * a {@link Breakage} wrapper of it. Its service property {@code dat.conformance=false} keeps it
 * out of the IAs the conformance suite tests by default.
 */
@Component(service = DatIaFactory.class, property = {
    "dat.provider.name=broken",
    "dat.ia.name=broken0",
    "dat.api.version=1.2",
    "dat.thread.safe:Boolean=false",
    "dat.transport=broken",
    "dat.provider.version=1.0",
    "dat.conformance:Boolean=false"
})
public final class BrokenFactory implements DatIaFactory {

    /** The framework property naming the IA that broken0 wraps. */
    static final String TARGET_PROPERTY = "dat.tests.broken.target";

    /** The IA broken0 wraps by default. */
    static final String DEFAULT_TARGET = "sim0";

    private final DatRegistry registry;
    private final String target;

    /**
     * @param context the bundle context, for the target property
     * @param registry the registry the target IA is opened through
     */
    @Activate
    public BrokenFactory(BundleContext context, @Reference DatRegistry registry) {
        this.registry = registry;
        String configured = context.getProperty(TARGET_PROPERTY);
        this.target = configured == null || configured.isBlank() ? DEFAULT_TARGET : configured;
    }

    @Override
    public InterfaceAdapter openIa(IaOpenRequest request) {
        Breakage breakage = new Breakage();
        EventDispatcher asyncEvd = (EventDispatcher) breakage.unwrap(request.asyncEvd());
        InterfaceAdapter delegate = registry.openIa(target, request.asyncEvdMinQlen(), asyncEvd, DatConstants.VERSION_MAJOR,
                DatConstants.VERSION_MINOR, false);
        return (InterfaceAdapter) breakage.wrap(delegate);
    }
}
