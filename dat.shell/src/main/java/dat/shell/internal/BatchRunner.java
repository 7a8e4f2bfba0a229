package dat.shell.internal;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import picocli.CommandLine;

/**
 * Runs one command non-interactively for the {@code ./dat} launcher, then stops the framework.
 *
 * <p>The launcher passes the command as framework properties {@code dat.batch.argc} and
 * {@code dat.batch.arg.0..n-1}, and a file {@value ExitStatus#FILE} into which this component
 * writes the command's exit status: 0 on success, 1 when the command failed, 2 on a usage error
 * (an unknown command, option or argument: picocli's {@link CommandLine.ParameterException}).
 * bnd's launcher itself always exits with 117 ("framework stopped"), so the status file is what
 * the script reports. The command's result goes to stdout; errors go to stderr as one line
 * {@code dat COMMAND: message}, never a stack trace (unless {@code -Ddat.debug=true}). Without
 * {@code dat.batch.argc} this component does nothing (the interactive shell, or an embedding
 * container).
 */
@Component(immediate = true)
public final class BatchRunner {

    static final String ARGC = "dat.batch.argc";
    static final String ARG = "dat.batch.arg.";

    /**
     * Starts the batch command on its own thread if the launcher asked for one.
     *
     * @param context this bundle's context
     * @param processor Gogo's command processor
     */
    @Activate
    public BatchRunner(BundleContext context, @Reference CommandProcessor processor) {
        String argc = context.getProperty(ARGC);
        if (argc == null) {
            return;
        }
        List<String> args = new ArrayList<>();
        for (int i = 0, n = Integer.parseInt(argc); i < n; i++) {
            args.add(context.getProperty(ARG + i));
        }
        String exitFile = context.getProperty(ExitStatus.FILE);
        Thread runner = new Thread(() -> {
            awaitStartedBundles(context);
            int status = run(context, processor, args);
            ExitStatus.write(exitFile, status);
            try {
                context.getBundle(0).stop();
            } catch (BundleException | IllegalStateException e) {
                System.err.println("dat: cannot stop the framework: " + e.getMessage());
            }
        }, "dat-batch");
        runner.start();
    }

    private static int run(BundleContext context, CommandProcessor processor, List<String> args) {
        // The process's own stdout/stderr, not System.out: Gogo's ThreadIO replaces System.out by a
        // stream that writes to the current session, which would loop back into itself here.
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        if (args.isEmpty()) {
            err.println("dat: no command given; './dat --help' lists the commands");
            return 2;
        }
        String name = args.getFirst();
        List<String> rest = args.subList(1, args.size());
        if (name.equals("--help") || name.equals("-h")) {
            name = "help";
        } else if (name.startsWith("-")) {
            err.println("dat: unknown option '" + name + "'; './dat --help' lists the commands and options");
            return 2;
        }
        // a dat command, named with or without its scope: the name goes to Gogo's parser, so nothing
        // but a command name may pass (no other scope, no second command after a ';')
        String display = name.startsWith(HelpCommand.SCOPE + ":") ? name.substring(HelpCommand.SCOPE.length() + 1) : name;
        if (!isDatCommand(context, display)) {
            err.println("dat: unknown command '" + name + "'; './dat help' lists the commands");
            return 2;
        }
        name = HelpCommand.SCOPE + ":" + display;
        StringBuilder line = new StringBuilder(name);
        for (String arg : rest) {
            line.append(' ').append(quote(arg));
        }
        try (CommandSession session = processor.createSession(System.in, out, err)) {
            Object result = session.execute(line);
            if (result != null) {
                out.print(withNewline(String.valueOf(session.format(result, Converter.INSPECT))));
            }
            out.flush();
            return 0;
        } catch (Exception e) {
            out.flush();
            return report(e, display, err);
        }
    }

    /** Prints what went wrong as one line; returns the exit status it calls for. */
    static int report(Exception e, String command, PrintStream err) {
        if (e.getClass().getSimpleName().equals("CommandNotFoundException")) {
            err.println("dat: unknown command '" + command + "'; './dat help' lists the commands");
            return 2;
        }
        Throwable cause = e;
        while (!(cause instanceof CommandLine.ParameterException)
                && (cause instanceof java.lang.reflect.InvocationTargetException || cause.getMessage() == null)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (Boolean.getBoolean("dat.debug")) {
            e.printStackTrace(err);
        }
        if (cause instanceof CommandLine.ParameterException usage) {
            err.println("dat " + command + ": " + firstLine(usage.getMessage()) + " (usage: './dat " + command + " --help')");
            return 2;
        }
        String message = cause.getMessage() != null ? cause.getMessage() : "failed: " + cause;
        err.println("dat " + command + ": " + message);
        return 1;
    }

    private static String firstLine(String text) {
        int end = text.indexOf('\n');
        return (end < 0 ? text : text.substring(0, end)).strip();
    }

    private static String withNewline(String text) {
        return text.isEmpty() || text.endsWith("\n") ? text : text + "\n";
    }

    /**
     * Waits (at most 10 s) until every bundle that is meant to start has started, so that commands
     * registered by any bundle's components exist before the command line is run. The launcher
     * starts bundles by start level; SCR registers a bundle's components while it starts.
     */
    static void awaitStartedBundles(BundleContext context) {
        int beginning = beginningStartLevel(context);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            boolean settling = false;
            for (Bundle bundle : context.getBundles()) {
                int state = bundle.getState();
                boolean fragment = bundle.getHeaders("").get("Fragment-Host") != null;
                if (!fragment && (state == Bundle.STARTING || state == Bundle.INSTALLED
                        || state == Bundle.RESOLVED && frameworkWillStart(bundle, beginning))) {
                    settling = true;
                    break;
                }
            }
            if (!settling) {
                return;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Whether the framework will start {@code bundle}: marked to start, at a level it rises to. */
    private static boolean frameworkWillStart(Bundle bundle, int beginning) {
        BundleStartLevel level = bundle.adapt(BundleStartLevel.class);
        return level != null && level.isPersistentlyStarted() && level.getStartLevel() <= beginning;
    }

    /** The start level the framework rises to; no bound when the property is absent or not a number. */
    private static int beginningStartLevel(BundleContext context) {
        String beginning = context.getProperty(Constants.FRAMEWORK_BEGINNING_STARTLEVEL);
        try {
            return beginning == null ? Integer.MAX_VALUE : Integer.parseInt(beginning.strip());
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }

    /** Whether some service offers the command {@code name} in the dat scope (commands live in several components). */
    static boolean isDatCommand(BundleContext context, String name) {
        if (!name.matches("[A-Za-z][A-Za-z0-9_-]*")) {
            return false;
        }
        try {
            String filter = "(&(osgi.command.scope=" + HelpCommand.SCOPE + ")(osgi.command.function=" + name + "))";
            return context.getServiceReferences((String) null, filter) != null;
        } catch (InvalidSyntaxException e) {
            return false;
        }
    }

    /** Quotes one argument for the Gogo parser: a double-quoted string, with \, " and $ escaped. */
    static String quote(String arg) {
        StringBuilder quoted = new StringBuilder(arg.length() + 2).append('"');
        for (int i = 0; i < arg.length(); i++) {
            char c = arg.charAt(i);
            if (c == '\\' || c == '"' || c == '$') {
                quoted.append('\\');
            }
            quoted.append(c);
        }
        return quoted.append('"').toString();
    }
}
