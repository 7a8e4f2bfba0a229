package dat.tests.provider.internal;

import dat.api.spi.DatIaFactory;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/** The test provider that is always there: IA {@code test0} of provider {@code test}. */
@Component(service = DatIaFactory.class, property = {
    "dat.provider.name=test",
    "dat.ia.name=test0",
    "dat.api.version=1.2",
    "dat.thread.safe:Boolean=false",
    "dat.transport=loopback",
    "dat.provider.version=1.0",
    "dat.tests.label=default",
    "dat.conformance:Boolean=false",
    "dat.extension=dat.api.ext.IaStatistics"
})
public final class DefaultTestFactory extends TestFactory {

    /** @param properties the component properties */
    @Activate
    public DefaultTestFactory(Map<String, Object> properties) {
        start(properties);
    }

    @Deactivate
    void deactivate() {
        stop();
    }
}
