package dat.shell.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dat.api.DatRegistry;
import dat.api.InterfaceAdapter;
import dat.api.IaQuery;
import dat.api.ProviderDTO;
import dat.api.RegistryRuntimeDTO;
import dat.api.spi.DatProviderStatus;
import dat.registry.DatConf;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The registry's Gogo commands (scope {@code dat}): {@code providers} lists every IA the registry
 * knows of with its state, {@code ia} opens one IA and shows its provider and attributes,
 * {@code checkconf} checks a static registry file the way Solaris' {@code datadm -v} shows one.
 * {@code providers} and {@code ia} write JSON with {@code --json}.
 */
@Component(service = ProviderCommands.class, property = {
    "osgi.command.scope=" + HelpCommand.SCOPE,
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

    @Command(name = "providers", description = "List the registry's providers: active, shadowed and failed IAs, static and dynamic,"
            + " and the installed providers that offer no IA, with their reasons; then the static registry and its bad lines.")
    static final class ProvidersOptions {
        @Option(names = "--json", description = "write JSON instead of the table")
        boolean json;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
        boolean help;
    }

    /**
     * Lists every IA of the registry: active, shadowed and failed ones, static and dynamic; the
     * installed providers that offer no IA, with their reason ({@link DatProviderStatus}); then the
     * static registry and its bad lines.
     *
     * @param args {@code --json}, {@code --help}
     */
    @Descriptor("list the registry's providers: active, shadowed and failed, static and dynamic, and the unavailable ones with their reason")
    public void providers(@Descriptor("[--json]") String... args) {
        CommandLine cli = Cli.parse(new ProvidersOptions(), args);
        if (cli.isUsageHelpRequested()) {
            Cli.print(Cli.usage(cli));
            return;
        }
        RegistryRuntimeDTO runtime = registry.getRuntimeDTO();
        Cli.print(cli.<ProvidersOptions>getCommand().json ? Json.text(providersJson(runtime, unavailable)) : providersTable(runtime));
    }

    private String providersTable(RegistryRuntimeDTO runtime) {
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
     * The registry's runtime as JSON: what {@code providers --json} writes.
     *
     * @param runtime the registry's runtime
     * @param unavailable the installed providers that offer no IA
     * @return the document
     */
    static ObjectNode providersJson(RegistryRuntimeDTO runtime, List<DatProviderStatus> unavailable) {
        ObjectNode root = Json.object();
        ArrayNode providers = root.putArray("providers");
        for (ProviderDTO provider : runtime.providers()) {
            ObjectNode node = providers.addObject();
            node.put("iaName", provider.iaName());
            node.put("apiVersion", provider.versionMajor() + "." + provider.versionMinor());
            node.put("threadSafe", provider.threadSafe());
            node.put("transport", provider.transport());
            node.put("providerName", provider.providerName());
            node.put("providerVersion", provider.providerVersion());
            node.put("origin", provider.origin().name().toLowerCase(Locale.ROOT));
            node.put("state", provider.state().name().toLowerCase(Locale.ROOT));
            node.put("failureReason", ProviderDTO.failureReasonName(provider.failureReason()));
            node.put("failureDetail", provider.failureDetail());
            node.put("source", provider.source());
            node.put("instanceData", provider.instanceData());
            node.put("openIas", provider.openIas());
            node.put("ranking", provider.ranking());
            node.put("serviceId", provider.id());
        }
        ArrayNode absent = root.putArray("unavailable");
        for (DatProviderStatus status : unavailable) {
            absent.addObject().put("providerName", status.providerName()).put("reason", status.unavailableReason());
        }
        ObjectNode conf = root.putObject("staticRegistry");
        conf.put("path", runtime.staticRegistry());
        conf.put("read", runtime.staticRegistryRead());
        ArrayNode problems = conf.putArray("problems");
        runtime.staticRegistryProblems().forEach(problems::add);
        return root;
    }

    @Command(name = "ia", description = "Open an IA (DAT 1.2), show its provider and its IA and provider attributes (dat_ia_query),"
            + " close it.")
    static final class IaOptions {
        @Parameters(paramLabel = "IA", converter = Cli.IaName.class, description = "the IA name, for example sim0 ('dat providers' lists them)")
        String iaName;
        @Option(names = "--json", description = "write JSON instead of the text")
        boolean json;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
        boolean help;
    }

    /**
     * Opens an IA (DAT 1.2, no thread safety asked), shows its provider and its IA and provider
     * attributes ({@code dat_ia_query}), and closes it.
     *
     * @param args the IA name, {@code --json}, {@code --help}
     */
    @Descriptor("open an IA, show its provider and its IA and provider attributes, close it")
    public void ia(@Descriptor("IA [--json]") String... args) {
        CommandLine cli = Cli.parse(new IaOptions(), args);
        if (cli.isUsageHelpRequested()) {
            Cli.print(Cli.usage(cli));
            return;
        }
        IaOptions options = cli.getCommand();
        String text;
        try (InterfaceAdapter ia = Cli.openIa(registry, options.iaName)) {
            IaQuery query = ia.query();
            Optional<ProviderDTO> provider = registry.findProviders("(dat.ia.name=" + DatRegistry.escapeFilterValue(ia.name()) + ")")
                    .stream().findFirst();
            text = options.json ? Json.text(iaJson(ia.name(), provider, query)) : iaText(ia.name(), provider, query);
        }
        Cli.print(text);
    }

    private static String iaText(String name, Optional<ProviderDTO> provider, IaQuery query) {
        StringBuilder out = new StringBuilder();
        out.append("IA ").append(name).append('\n');
        provider.ifPresent(p -> out.append("  provider  ").append(p.providerName())
                .append(p.providerVersion().isEmpty() ? "" : " " + p.providerVersion())
                .append(", transport ").append(dash(p.transport()))
                .append(", DAT ").append(p.versionMajor()).append('.').append(p.versionMinor())
                .append(p.threadSafe() ? ", thread safe" : ", not thread safe")
                .append(", ").append(p.origin() == ProviderDTO.Origin.STATIC ? "static" : "dynamic")
                .append(", ").append(p.source())
                .append(p.instanceData().isEmpty() ? "" : ", ia_params \"" + p.instanceData() + "\"")
                .append('\n'));
        out.append("  async EVD ").append(AttributeFormat.asyncEvd(query.asyncEvd())).append("\n\n");
        out.append("IA attributes (dat_ia_query)\n");
        attributes(out, query.iaAttributes());
        out.append("\nprovider attributes (dat_ia_query)\n");
        attributes(out, query.providerAttributes());
        return out.toString();
    }

    private static ObjectNode iaJson(String name, Optional<ProviderDTO> provider, IaQuery query) {
        ObjectNode root = Json.object();
        root.put("ia", name);
        provider.ifPresent(p -> root.putObject("provider")
                .put("providerName", p.providerName())
                .put("providerVersion", p.providerVersion())
                .put("transport", p.transport())
                .put("apiVersion", p.versionMajor() + "." + p.versionMinor())
                .put("threadSafe", p.threadSafe())
                .put("origin", p.origin().name().toLowerCase(Locale.ROOT))
                .put("source", p.source())
                .put("instanceData", p.instanceData()));
        root.set("asyncEvd", AttributeFormat.asyncEvdJson(query.asyncEvd()));
        ObjectNode iaAttributes = root.putObject("iaAttributes");
        AttributeFormat.attributes(query.iaAttributes()).forEach(a -> iaAttributes.set(a.name(), a.json()));
        ObjectNode providerAttributes = root.putObject("providerAttributes");
        AttributeFormat.attributes(query.providerAttributes()).forEach(a -> providerAttributes.set(a.name(), a.json()));
        return root;
    }

    @Command(name = "checkconf", description = "Check a static registry file (dat.conf): list every entry and every bad line with"
            + " its reason; fail on a bad line.")
    static final class CheckconfOptions {
        @Parameters(paramLabel = "FILE", converter = Cli.FileName.class, description = "the file, in the dat.conf format")
        String file;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
        boolean help;
    }

    /**
     * Checks a static registry file: lists every entry and every bad line with its reason, the
     * role of Solaris' {@code datadm -v}. Fails (the command's exit status is 1) when there is a bad
     * line or the file cannot be read; the report is printed first.
     *
     * @param args the file, {@code --help}
     * @throws IllegalArgumentException when the file has bad lines or cannot be read
     */
    @Descriptor("check a static registry file (dat.conf): every entry and every bad line; fails on a bad line")
    public void checkconf(@Descriptor("FILE") String... args) {
        CommandLine cli = Cli.parse(new CheckconfOptions(), args);
        if (cli.isUsageHelpRequested()) {
            Cli.print(Cli.usage(cli));
            return;
        }
        String file = cli.<CheckconfOptions>getCommand().file;
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
        }
        Cli.print(out.toString());
        if (!conf.isClean()) {
            throw new IllegalArgumentException(file + " has " + plural(conf.problems().size(), "bad line", "bad lines"));
        }
    }

    private static void attributes(StringBuilder out, Record attributes) {
        List<AttributeFormat.Attribute> list = AttributeFormat.attributes(attributes);
        int width = list.stream().mapToInt(a -> a.name().length()).max().orElse(0);
        for (AttributeFormat.Attribute attribute : list) {
            out.append("  ").append(attribute.name()).append(" ".repeat(width - attribute.name().length() + 2))
                    .append(attribute.text()).append('\n');
        }
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
