package dat.shell.internal;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.TreeMap;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code dat:help}: the list of the dat commands, found among the registered command services of
 * scope {@code dat} (whichever bundle registers them: {@code test} comes with the conformance
 * suite, {@code stats} with the management bundle), each with its {@link Descriptor}; or one
 * command's usage ({@code help perf} is {@code perf --help}).
 */
@Component(service = HelpCommand.class, property = {
    "osgi.command.scope=" + HelpCommand.SCOPE,
    "osgi.command.function=help"
})
public final class HelpCommand {

    /** The Gogo scope of the dat commands. */
    static final String SCOPE = "dat";

    private final BundleContext context;

    /** @param context this bundle's context, to find the command services */
    @Activate
    public HelpCommand(BundleContext context) {
        this.context = context;
    }

    @Command(name = "help", description = "List the dat commands, or show one command's usage.")
    static final class HelpOptions {
        @Parameters(arity = "0..1", paramLabel = "COMMAND", description = "the command to explain")
        String command;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
        boolean help;
    }

    /**
     * Lists the dat commands, or shows one command's usage.
     *
     * @param session the Gogo session, to ask a command for its usage
     * @param args a command name, or nothing
     * @throws Exception when the command fails to give its usage
     */
    @Descriptor("list the dat commands, or show one command's usage")
    public void help(CommandSession session, @Descriptor("[COMMAND]") String... args) throws Exception {
        CommandLine cli = Cli.parse(new HelpOptions(), args);
        if (cli.isUsageHelpRequested()) {
            Cli.print(Cli.usage(cli));
            return;
        }
        String command = cli.<HelpOptions>getCommand().command;
        Map<String, String> commands = commands(context);
        if (command == null) {
            Cli.print(list(commands));
            return;
        }
        String name = command.startsWith(SCOPE + ":") ? command.substring(SCOPE.length() + 1) : command;
        if (!commands.containsKey(name)) {
            throw Cli.error(cli, "no dat command named '" + command + "'; 'dat help' lists them");
        }
        session.execute(SCOPE + ":" + name + " --help"); // the command prints its usage
    }

    private static String list(Map<String, String> commands) {
        int width = commands.keySet().stream().mapToInt(String::length).max().orElse(0);
        StringBuilder out = new StringBuilder("dat commands (Gogo scope \"dat\"; ./dat and the dat shell take them without \"dat:\"):\n");
        commands.forEach((name, description) -> out.append("  ").append(name).append(" ".repeat(width - name.length() + 3))
                .append(description).append('\n'));
        out.append("'help COMMAND' or 'COMMAND --help' shows a command's options.\n");
        return out.toString();
    }

    /**
     * The dat commands registered now, each with the {@link Descriptor} of its method.
     *
     * @param context a bundle context
     * @return command name to description, sorted by name
     */
    static Map<String, String> commands(BundleContext context) {
        Map<String, String> commands = new TreeMap<>();
        ServiceReference<?>[] references;
        try {
            references = context.getServiceReferences((String) null, "(osgi.command.scope=" + SCOPE + ")");
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        if (references == null) {
            return commands;
        }
        for (ServiceReference<?> reference : references) {
            Object service = context.getService(reference);
            if (service == null) {
                continue;
            }
            try {
                for (String function : functions(reference.getProperty("osgi.command.function"))) {
                    commands.put(function, describe(service.getClass(), function));
                }
            } finally {
                context.ungetService(reference);
            }
        }
        return commands;
    }

    private static String[] functions(Object property) {
        if (property instanceof String[] names) {
            return names;
        }
        return property == null ? new String[0] : new String[] {property.toString()};
    }

    private static String describe(Class<?> type, String function) {
        for (Method method : type.getMethods()) {
            Descriptor descriptor = method.getAnnotation(Descriptor.class);
            if (method.getName().equals(function) && descriptor != null) {
                return descriptor.value();
            }
        }
        return "";
    }
}
