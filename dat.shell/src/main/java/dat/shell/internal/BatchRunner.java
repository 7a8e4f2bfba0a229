package dat.shell.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Runs one command non-interactively for the {@code ./dat} launcher, then stops the framework.
 *
 * <p>The launcher passes the command as framework properties {@code dat.batch.argc} and
 * {@code dat.batch.arg.0..n-1}, and a file {@code dat.batch.exitfile} into which this component
 * writes the command's exit status: 0 on success, 1 when the command failed, 2 for an unknown
 * command. bnd's launcher itself always exits with 117 ("framework stopped"), so the status file is
 * what the script reports. Without {@code dat.batch.argc} this component does nothing (the
 * interactive shell, or an embedding container).
 */
@Component(immediate = true)
public final class BatchRunner {

    static final String ARGC = "dat.batch.argc";
    static final String ARG = "dat.batch.arg.";
    static final String EXIT_FILE = "dat.batch.exitfile";

    /**
     * Starts the batch command on its own thread if the launcher asked for one.
     *
     * @param context this bundle's context
     * @param processor Gogo's command processor
     * @param commands the dat commands, so that they are registered before the command runs
     */
    @Activate
    public BatchRunner(BundleContext context, @Reference CommandProcessor processor, @Reference DatCommands commands) {
        String argc = context.getProperty(ARGC);
        if (argc == null) {
            return;
        }
        List<String> args = new ArrayList<>();
        for (int i = 0, n = Integer.parseInt(argc); i < n; i++) {
            args.add(context.getProperty(ARG + i));
        }
        String exitFile = context.getProperty(EXIT_FILE);
        Thread runner = new Thread(() -> {
            int status = run(processor, commands, args);
            writeStatus(exitFile, status);
            try {
                context.getBundle(0).stop();
            } catch (BundleException | IllegalStateException e) {
                System.err.println("dat: cannot stop the framework: " + e);
            }
        }, "dat-batch");
        runner.start();
    }

    private static int run(CommandProcessor processor, DatCommands commands, List<String> args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        if (args.isEmpty()) {
            err.println("dat: no command given; try 'help'");
            return 2;
        }
        String name = args.getFirst();
        if (name.indexOf(':') < 0 && commands.isCommand(name)) {
            name = DatCommands.SCOPE + ":" + name;
        }
        StringBuilder line = new StringBuilder(name);
        for (String arg : args.subList(1, args.size())) {
            line.append(' ').append(quote(arg));
        }
        try (CommandSession session = processor.createSession(System.in, out, err)) {
            Object result = session.execute(line);
            if (result != null) {
                out.println(session.format(result, Converter.INSPECT));
            }
            out.flush();
            return 0;
        } catch (Exception e) {
            out.flush();
            if (e.getClass().getSimpleName().equals("CommandNotFoundException")) {
                err.println("dat: unknown command '" + args.getFirst() + "'; try 'help'");
                return 2;
            }
            err.println("dat: " + args.getFirst() + ": " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            return 1;
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

    private static void writeStatus(String exitFile, int status) {
        if (exitFile == null) {
            return;
        }
        try {
            Files.writeString(Path.of(exitFile), Integer.toString(status), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            System.err.println("dat: cannot write the exit status to " + exitFile + ": " + e);
        }
    }
}
