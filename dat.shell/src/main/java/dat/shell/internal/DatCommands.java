package dat.shell.internal;

import dat.api.DatRegistry;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** The Gogo commands of scope {@code dat}. */
@Component(service = DatCommands.class, property = {
    "osgi.command.scope=" + DatCommands.SCOPE,
    "osgi.command.function=help"
})
public final class DatCommands {

    /** The Gogo scope of the dat commands. */
    static final String SCOPE = "dat";

    private final DatRegistry registry;

    /** @param registry the registry the commands ask */
    @Activate
    public DatCommands(@Reference DatRegistry registry) {
        this.registry = registry;
    }

    /**
     * Says what the dat commands are.
     *
     * @return the command list
     */
    @Descriptor("list the dat commands")
    public String help() {
        return """
                dat commands (Gogo scope "dat"; in ./dat the scope may be left out):
                  providers        the registry's providers: active, shadowed, failed; static and dynamic
                  ia IA            open an IA, show its provider and attributes, close it
                  checkconf FILE   check a static registry file (dat.conf); fails on a bad line
                  demo             the providers, then a short perf run on the default IA
                  perf [IA]        latency, bandwidth, message and connection rate with baselines (perf --help)
                  test [IA]        the DAT conformance suite, a table per area; fails on a failure (test --help)
                  help             this list
                """;
    }
}
