package dat.shell.internal;

import dat.api.DatRegistry;
import dat.api.InterfaceAdapter;
import dat.api.IaQuery;
import dat.api.ProviderDTO;
import dat.api.RegistryRuntimeDTO;
import dat.api.spi.DatProviderStatus;
import dat.registry.DatConf;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.RecordComponent;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The registry's Gogo commands (scope {@code dat}): {@code providers} lists every IA the registry
 * knows of with its state, {@code ia} opens one IA and shows its provider and attributes,
 * {@code checkconf} checks a static registry file the way Solaris' {@code datadm -v} shows one.
 */
@Component(service = ProviderCommands.class, property = {
    "osgi.command.scope=" + DatCommands.SCOPE,
    "osgi.command.function=providers",
    "osgi.command.function=ia",
    "osgi.command.function=checkconf"
})
public final class ProviderCommands {

    private final DatRegistry registry;
    /** Installed providers that offer no IA, and say why (the verbs provider without RDMA). */
    private final List<DatProviderStatus> unavailable = new CopyOnWriteArrayList<>();

    /** @param registry the registry the commands ask */
    @Activate
    public ProviderCommands(@Reference DatRegistry registry) {
        this.registry = registry;
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

    /**
     * Lists every IA of the registry: active, shadowed and failed ones, static and dynamic; the
     * installed providers that offer no IA, with their reason ({@link DatProviderStatus}); then the
     * static registry and its bad lines.
     *
     * @return the table
     */
    @Descriptor("list the registry's providers: active, shadowed and failed, static and dynamic, and the unavailable ones with their reason")
    public String providers() {
        RegistryRuntimeDTO runtime = registry.getRuntimeDTO();
        Table table = new Table("IA NAME", "API", "THREAD SAFE", "TRANSPORT", "PROVIDER", "VERSION", "ORIGIN", "STATE",
                "OPEN", "SOURCE / REASON");
        for (ProviderDTO provider : runtime.providers()) {
            String state = switch (provider.state()) {
                case ACTIVE -> "active";
                case SHADOWED -> "shadowed";
                case FAILED -> "failed (" + ProviderDTO.failureReasonName(provider.failureReason()) + ")";
            };
            table.row(provider.iaName().isEmpty() ? "-" : provider.iaName(),
                    provider.versionMajor() + "." + provider.versionMinor(),
                    provider.threadSafe() ? "yes" : "no",
                    dash(provider.transport()),
                    dash(provider.providerName()),
                    dash(provider.providerVersion()),
                    provider.origin() == ProviderDTO.Origin.STATIC ? "static" : "dynamic",
                    state,
                    Integer.toString(provider.openIas()),
                    provider.state() == ProviderDTO.State.ACTIVE ? provider.source()
                            : provider.failureDetail() + (provider.source().isEmpty() ? "" : " [" + provider.source() + "]"));
        }
        for (DatProviderStatus status : unavailable) {
            table.row("-", "-", "-", "-", dash(status.providerName()), "-", "dynamic", "unavailable", "0",
                    status.unavailableReason());
        }
        StringBuilder out = new StringBuilder(table.toString());
        if (runtime.providers().isEmpty() && unavailable.isEmpty()) {
            out.append("(no provider is registered)\n");
        }
        if (runtime.staticRegistry().isEmpty()) {
            out.append("static registry: none (set the dat.conf property, DAT_CONF, or the dat.registry configuration)\n");
        } else {
            long entries = runtime.providers().stream().filter(p -> p.origin() == ProviderDTO.Origin.STATIC).count();
            out.append("static registry: ").append(runtime.staticRegistry())
                    .append(runtime.staticRegistryRead() ? " (" + plural(entries, "entry", "entries") + ", "
                            + plural(runtime.staticRegistryProblems().size(), "bad line", "bad lines") + ")" : " (missing)")
                    .append('\n');
            runtime.staticRegistryProblems().forEach(problem -> out.append("  ").append(problem).append('\n'));
        }
        return out.toString();
    }

    /**
     * Opens an IA (DAT 1.2, no thread safety asked), shows its provider and its IA and provider
     * attributes ({@code dat_ia_query}), and closes it.
     *
     * @param iaName the IA name
     * @return the description
     */
    @Descriptor("open an IA, show its provider and its IA and provider attributes, close it")
    public String ia(@Descriptor("the IA name, for example sim0") String iaName) {
        StringBuilder out = new StringBuilder();
        try (InterfaceAdapter ia = registry.openIa(iaName)) {
            IaQuery query = ia.query();
            out.append("IA ").append(ia.name()).append('\n');
            registry.findProviders("(dat.ia.name=" + DatRegistry.escapeFilterValue(ia.name()) + ")").stream().findFirst()
                    .ifPresent(provider -> out.append("  provider  ").append(provider.providerName())
                            .append(provider.providerVersion().isEmpty() ? "" : " " + provider.providerVersion())
                            .append(", transport ").append(dash(provider.transport()))
                            .append(", DAT ").append(provider.versionMajor()).append('.').append(provider.versionMinor())
                            .append(provider.threadSafe() ? ", thread safe" : ", not thread safe")
                            .append(", ").append(provider.origin() == ProviderDTO.Origin.STATIC ? "static" : "dynamic")
                            .append(", ").append(provider.source())
                            .append(provider.instanceData().isEmpty() ? "" : ", ia_params \"" + provider.instanceData() + "\"")
                            .append('\n'));
            out.append("  async EVD ").append(query.asyncEvd()).append("\n\n");
            out.append("IA attributes (dat_ia_query)\n");
            attributes(out, query.iaAttributes());
            out.append("\nprovider attributes (dat_ia_query)\n");
            attributes(out, query.providerAttributes());
        }
        return out.toString();
    }

    /**
     * Checks a static registry file: lists every entry and every bad line with its reason, the
     * role of Solaris' {@code datadm -v}. Fails (the command's exit status is 1) when there is a bad
     * line or the file cannot be read; the report is printed first.
     *
     * @param session the Gogo session, to print the report before failing
     * @param file the file, in the dat.conf format
     * @return the report, when the file has no bad line
     * @throws IllegalArgumentException when the file has bad lines or cannot be read
     */
    @Descriptor("check a static registry file (dat.conf): every entry and every bad line; fails on a bad line")
    public String checkconf(CommandSession session, @Descriptor("the dat.conf file") String file) {
        DatConf conf;
        try {
            conf = DatConf.read(Path.of(file));
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(file + ": no such file");
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(file + ": cannot read: " + e.getMessage());
        }
        Table table = new Table("LINE", "IA NAME", "API", "THREAD SAFE", "DEFAULT", "PROVIDER", "PROVIDER VERSION",
                "IA PARAMS", "PLATFORM PARAMS");
        for (DatConf.Entry entry : conf.entries()) {
            table.row(Integer.toString(entry.line()), entry.iaName(), entry.apiVersion(),
                    entry.threadSafe() ? "threadsafe" : "nonthreadsafe", entry.isDefault() ? "default" : "nondefault",
                    entry.provider(), quote(entry.providerVersion()), quote(entry.iaParams()), quote(entry.platformParams()));
        }
        StringBuilder out = new StringBuilder();
        out.append(file).append(": ").append(plural(conf.entries().size(), "entry", "entries")).append(", ")
                .append(plural(conf.problems().size(), "bad line", "bad lines")).append('\n');
        if (!conf.entries().isEmpty()) {
            out.append(table);
        }
        if (!conf.isClean()) {
            out.append("bad lines:\n");
            conf.problems().forEach(problem -> out.append("  ").append(problem).append('\n'));
            PrintStream console = session.getConsole();
            console.print(out);
            console.flush();
            throw new IllegalArgumentException(file + " has " + plural(conf.problems().size(), "bad line", "bad lines"));
        }
        return out.toString();
    }

    private static void attributes(StringBuilder out, Record attributes) {
        RecordComponent[] components = attributes.getClass().getRecordComponents();
        int width = 0;
        for (RecordComponent component : components) {
            width = Math.max(width, component.getName().length());
        }
        for (RecordComponent component : components) {
            Object value;
            try {
                value = component.getAccessor().invoke(attributes);
            } catch (ReflectiveOperationException e) {
                value = "? (" + e + ")";
            }
            out.append("  ").append(component.getName()).append(" ".repeat(width - component.getName().length() + 2))
                    .append(format(value)).append('\n');
        }
    }

    private static String format(Object value) {
        if (value instanceof Map<?, ?> map) {
            return map.isEmpty() ? "{}" : new TreeMap<>(map.entrySet().stream().collect(Collectors.toMap(
                    e -> String.valueOf(e.getKey()), e -> String.valueOf(e.getValue())))).toString();
        }
        if (value instanceof Collection<?> collection) {
            return collection.stream().map(String::valueOf).sorted().collect(Collectors.joining(", ", "[", "]"));
        }
        return String.valueOf(value);
    }

    private static String dash(String value) {
        return value == null || value.isEmpty() ? "-" : value;
    }

    private static String quote(String value) {
        return "\"" + value + "\"";
    }

    private static String plural(long count, String one, String many) {
        return count + " " + (count == 1 ? one : many);
    }

    /** A text table: columns as wide as their widest cell, two blanks apart, no trailing blanks. */
    static final class Table {
        private final List<String[]> rows = new ArrayList<>();

        Table(String... headers) {
            rows.add(headers);
        }

        void row(String... cells) {
            rows.add(cells);
        }

        @Override
        public String toString() {
            int columns = rows.getFirst().length;
            int[] widths = new int[columns];
            for (String[] row : rows) {
                for (int i = 0; i < columns; i++) {
                    widths[i] = Math.max(widths[i], row[i].length());
                }
            }
            StringBuilder out = new StringBuilder();
            for (String[] row : rows) {
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < columns; i++) {
                    line.append(row[i]);
                    if (i < columns - 1) {
                        line.append(" ".repeat(widths[i] - row[i].length() + 2));
                    }
                }
                out.append(line.toString().stripTrailing()).append('\n');
            }
            return out.toString();
        }
    }
}
