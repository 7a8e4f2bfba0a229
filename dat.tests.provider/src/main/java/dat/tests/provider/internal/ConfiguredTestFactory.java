package dat.tests.provider.internal;

import dat.api.spi.DatIaFactory;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Test providers made by Configuration Admin factory configurations of PID
 * {@value #PID}: one factory service per configuration, its service properties being the
 * configuration's (so {@code dat.ia.name}, {@code service.ranking}, {@code dat.thread.safe} ...
 * are set by the test).
 */
@Component(service = DatIaFactory.class, configurationPid = ConfiguredTestFactory.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE, property = {
            "dat.provider.name=test",
            "dat.api.version=1.2",
            "dat.thread.safe:Boolean=false",
            "dat.transport=loopback",
            "dat.provider.version=1.0",
            "dat.tests.label=configured",
            "dat.conformance:Boolean=false",
            "dat.extension=dat.api.ext.IaStatistics"
        })
@Designate(ocd = ConfiguredTestFactory.Config.class, factory = true)
public final class ConfiguredTestFactory extends TestFactory {

    /** The factory PID of test provider configurations. */
    public static final String PID = "dat.tests.provider";

    /** What a test provider configuration may hold. */
    @ObjectClassDefinition(name = "DAT test provider", description = "A test-only DAT provider instance.")
    public @interface Config {
        /** @return the IA names it offers */
        @AttributeDefinition(required = false) String[] dat_ia_name();

        /** @return its provider name */
        @AttributeDefinition(required = false) String dat_provider_name() default "test";

        /** @return the DAT version it implements, major.minor */
        @AttributeDefinition(required = false) String dat_api_version() default "1.2";

        /** @return whether it is thread safe */
        @AttributeDefinition(required = false) boolean dat_thread_safe() default false;

        /** @return its ranking among providers of the same IA */
        @AttributeDefinition(required = false) int service_ranking() default 0;

        /** @return a label the IAs report in their vendor attributes */
        @AttributeDefinition(required = false) String dat_tests_label() default "configured";

        /** @return the most IAs open at once, 0 for no limit */
        @AttributeDefinition(required = false) int dat_tests_max_ias() default 0;
    }

    /** @param properties the component properties, the configuration's included */
    @Activate
    public ConfiguredTestFactory(Map<String, Object> properties) {
        start(properties);
    }

    @Deactivate
    void deactivate() {
        stop();
    }
}
