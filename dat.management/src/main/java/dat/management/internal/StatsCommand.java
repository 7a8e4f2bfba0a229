package dat.management.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dat.management.IaStatisticsMXBean;
import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.lang.management.ManagementFactory;
import java.net.MalformedURLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.management.InstanceNotFoundException;
import javax.management.JMX;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXServiceURL;
import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code dat:stats} Gogo command: the counters of the open IAs that keep them, read from their
 * MXBeans ({@link IaStatisticsMXBean}) — in this JVM, or in a running application that
 * {@code --pid} or {@code --jmx} names. A one-shot {@code ./dat stats} without either is a usage
 * error: its own IAs close with the command, so it would only ever say that none is open.
 */
@Component(service = StatsCommand.class, property = {
    "osgi.command.scope=dat",
    "osgi.command.function=stats"
})
public final class StatsCommand {

    /** The framework property of the {@code ./dat} launcher's one-shot commands. */
    private static final String ONE_SHOT = "dat.batch.argc";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final BundleContext context;

    /**
     * @param context this bundle's context, to tell a one-shot {@code ./dat} from a shell
     * @param publisher the MXBean publisher of this JVM's IAs
     */
    @Activate
    public StatsCommand(BundleContext context, @Reference StatisticsPublisher publisher) {
        this.context = context;
    }

    @Command(name = "stats", description = {"Show the counters of the open IAs that keep them (dat.api.ext.IaStatistics):"
        + " operations and bytes posted, post errors, completions, completion errors, async errors; the figures of their JMX"
        + " MXBeans dat:type=IA,name=<ia>,instance=<n>.",
        "In the dat shell or a container the IAs are this JVM's; from ./dat, attach to a running application with --pid or --jmx."})
    static final class StatsOptions {
        @Parameters(arity = "0..1", paramLabel = "IA", converter = IaName.class, description = "only the open instances of this IA")
        String iaName;
        @ArgGroup(exclusive = true)
        Target target;
        @Option(names = "--json", description = "write JSON instead of the text")
        boolean json;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
        boolean help;
    }

    /** Where the IAs are: another JVM, by process id or JMX service URL. */
    static final class Target {
        @Option(names = "--pid", paramLabel = "PID", converter = ProcessId.class, description = "the process id of a running JVM"
                + " with DAT (the JDK's attach mechanism starts its local JMX agent)")
        Long pid;
        @Option(names = "--jmx", paramLabel = "URL", converter = ServiceUrl.class, description = "the JMX service URL of a running"
                + " JVM with DAT, e.g. service:jmx:rmi:///jndi/rmi://HOST:PORT/jmxrmi")
        String url;
    }

    /** An IA name: not blank, which no IA is named (a usage error, not a report of no such IA). */
    static final class IaName implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String text) {
            if (text.isBlank()) {
                throw new CommandLine.TypeConversionException("needs an IA name, not '" + text + "' (without one, every open IA)");
            }
            return text;
        }
    }

    /** A process id: a positive number a process of this host may have (Linux's are at most 2^22). */
    static final class ProcessId implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            try {
                long pid = Long.parseLong(text.strip());
                if (pid > 0 && pid <= Integer.MAX_VALUE) {
                    return pid;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new CommandLine.TypeConversionException("needs a process id, a positive number, not '" + text + "'");
        }
    }

    /** A JMX service URL, checked as {@link JMXServiceURL} reads it. */
    static final class ServiceUrl implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String text) {
            String problem;
            try {
                JMXServiceURL url = new JMXServiceURL(text);
                problem = !url.getProtocol().equals("rmi") ? "the JDK connects with the rmi protocol, not " + url.getProtocol()
                        : registryPortProblem(url.getURLPath());
            } catch (MalformedURLException e) {
                problem = e.getMessage();
            }
            if (problem != null) {
                throw new CommandLine.TypeConversionException("needs a JMX service URL such as"
                        + " service:jmx:rmi:///jndi/rmi://HOST:PORT/jmxrmi, not '" + text + "' (" + problem + ")");
            }
            return text;
        }

        /** What is wrong with the RMI registry's address in a {@code /jndi/rmi://HOST:PORT/NAME} path, or {@code null}. */
        private static String registryPortProblem(String path) {
            if (!path.startsWith("/jndi/rmi://")) {
                return null; // a stub in the URL, or another directory: the connection says what is wrong
            }
            try {
                int port = new java.net.URI(path.substring("/jndi/".length())).getPort();
                return port == -1 || (port > 0 && port <= 0xFFFF) ? null : "port " + port + " out of range";
            } catch (java.net.URISyntaxException e) {
                return e.getMessage();
            }
        }
    }

    /**
     * Shows the counters of the open IAs that keep them.
     *
     * @param args an IA name, {@code --pid PID} or {@code --jmx URL}, {@code --json}, {@code --help}
     * @throws IOException when the other JVM cannot be reached
     */
    @Descriptor("show the counters of the open IAs (operations, bytes, completions, errors), here or in a running JVM (--pid, --jmx)")
    public void stats(@Descriptor("[IA] [--pid PID | --jmx URL] [--json]") String... args) throws IOException {
        CommandLine cli = new CommandLine(new StatsOptions())
                .setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF))
                .setExpandAtFiles(false)
                .setUsageHelpWidth(100);
        cli.getCommandSpec().usageMessage().synopsisHeading("usage: dat ").abbreviateSynopsis(true);
        cli.parseArgs(args == null ? new String[0] : args);
        if (cli.isUsageHelpRequested()) {
            print(cli.getUsageMessage());
            return;
        }
        StatsOptions options = cli.getCommand();
        String iaName = options.iaName == null ? "" : options.iaName;
        if (options.target == null) {
            if (context.getProperty(ONE_SHOT) != null) {
                throw new CommandLine.ParameterException(cli, "a one-shot ./dat has no IA open to show (they close with the command):"
                        + " attach to a running application with --pid PID or --jmx URL, or run stats in the dat shell");
            }
            print(report(ManagementFactory.getPlatformMBeanServer(), iaName, options.json));
            return;
        }
        try (JMXConnector connector = options.target.pid != null ? RemoteJvm.attach(options.target.pid)
                : RemoteJvm.connect(options.target.url)) {
            print(report(connector.getMBeanServerConnection(), iaName, options.json));
        }
    }

    /** Prints to the session ({@code System.out} of the command's thread): a shell running one command prints no result. */
    private static void print(String text) {
        System.out.print(text.endsWith("\n") ? text : text + "\n");
        System.out.flush();
    }

    /** One IA's figures, read from its MXBean in one go: the report does not go back to an MXBean that may be gone. */
    private record Figures(String iaName, long instance, String providerName, boolean open, String since, long operationsPosted,
            Map<String, Long> operationsPostedByKind, long bytesPosted, Map<String, Long> bytesPostedByKind, long postErrors,
            Map<String, Long> postErrorsByType, long completions, long completedBytes, long completionErrors,
            Map<String, Long> completionErrorsByStatus, long flushed, long asyncErrors) {

        static Figures of(IaStatisticsMXBean s) {
            return new Figures(s.getIaName(), s.getInstance(), s.getProviderName(), s.isOpen(), s.getSince(), s.getOperationsPosted(),
                    s.getOperationsPostedByKind(), s.getBytesPosted(), s.getBytesPostedByKind(), s.getPostErrors(),
                    s.getPostErrorsByType(), s.getCompletions(), s.getCompletedBytes(), s.getCompletionErrors(),
                    s.getCompletionErrorsByStatus(), s.getFlushed(), s.getAsyncErrors());
        }
    }

    static String report(MBeanServerConnection server, String iaName, boolean json) throws IOException {
        List<Figures> beans = new ArrayList<>();
        for (ObjectName name : server.queryNames(IaStatisticsMXBean.allIas(), null)) {
            IaStatisticsMXBean bean = JMX.newMXBeanProxy(server, name, IaStatisticsMXBean.class);
            try {
                if (iaName.isEmpty() || bean.getIaName().equals(iaName)) {
                    beans.add(Figures.of(bean));
                }
            } catch (UndeclaredThrowableException e) {
                // an IA that closed since the query has no MXBean left to read: it is no longer open
                if (!(e.getCause() instanceof InstanceNotFoundException)) {
                    throw e;
                }
            }
        }
        beans.sort(Comparator.comparing(Figures::iaName).thenComparingLong(Figures::instance));
        return json ? json(beans) : text(beans, iaName);
    }

    private static String text(List<Figures> beans, String iaName) {
        if (beans.isEmpty()) {
            return iaName.isEmpty()
                    ? "no open IA keeps statistics (dat.api.ext.IaStatistics); counters exist while an IA is open\n"
                    : "no open instance of IA '" + iaName + "' keeps statistics (dat.api.ext.IaStatistics)\n";
        }
        StringBuilder out = new StringBuilder();
        for (Figures s : beans) {
            out.append(String.format("IA %s #%d  provider %s  %s  since %s  (JMX %s)%n", s.iaName(), s.instance(),
                    s.providerName(), s.open() ? "open" : "closed", s.since(), IaStatisticsMXBean.objectName(s.iaName(), s.instance())));
            out.append(String.format("  posted        %d operations, %d bytes%s%n", s.operationsPosted(), s.bytesPosted(),
                    perOperation(s.operationsPostedByKind(), s.bytesPostedByKind())));
            out.append(String.format("  post errors   %d%s%n", s.postErrors(), named(s.postErrorsByType())));
            out.append(String.format("  completions   %d, %d bytes; in error %d%s%n", s.completions(), s.completedBytes(),
                    s.completionErrors(), named(s.completionErrorsByStatus())));
            out.append(String.format("  async errors  %d%n", s.asyncErrors()));
        }
        return out.toString();
    }

    private static String json(List<Figures> beans) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode ias = root.putArray("ias");
        for (Figures s : beans) {
            ObjectNode ia = ias.addObject();
            ia.put("iaName", s.iaName());
            ia.put("instance", s.instance());
            ia.put("providerName", s.providerName());
            ia.put("open", s.open());
            ia.put("since", s.since());
            ia.put("objectName", IaStatisticsMXBean.objectName(s.iaName(), s.instance()).toString());
            ia.put("operationsPosted", s.operationsPosted());
            counts(ia.putObject("operationsPostedByKind"), s.operationsPostedByKind());
            ia.put("bytesPosted", s.bytesPosted());
            counts(ia.putObject("bytesPostedByKind"), s.bytesPostedByKind());
            ia.put("postErrors", s.postErrors());
            counts(ia.putObject("postErrorsByType"), s.postErrorsByType());
            ia.put("completions", s.completions());
            ia.put("completedBytes", s.completedBytes());
            ia.put("completionErrors", s.completionErrors());
            counts(ia.putObject("completionErrorsByStatus"), s.completionErrorsByStatus());
            ia.put("flushed", s.flushed());
            ia.put("asyncErrors", s.asyncErrors());
        }
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
        }
    }

    private static void counts(ObjectNode node, Map<String, Long> counts) {
        new java.util.TreeMap<>(counts).forEach(node::put);
    }

    private static String perOperation(Map<String, Long> operations, Map<String, Long> bytes) {
        String parts = new java.util.TreeMap<>(operations).entrySet().stream().filter(e -> e.getValue() > 0)
                .map(e -> e.getKey() + " " + e.getValue() + " (" + bytes.getOrDefault(e.getKey(), 0L) + " B)")
                .collect(Collectors.joining(", "));
        return parts.isEmpty() ? "" : ": " + parts;
    }

    private static String named(Map<String, Long> counts) {
        return counts.isEmpty() ? "" : ": " + new java.util.TreeMap<>(counts).entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
    }
}
