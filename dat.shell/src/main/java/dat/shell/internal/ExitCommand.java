package dat.shell.internal;

import java.util.Hashtable;
import java.util.concurrent.locks.LockSupport;
import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code dat:exit}: leaves the dat application's shell, with a status. The command exists only in
 * the dat application (framework property {@value #APPLICATION} set by {@code cnf/app.bndrun}): in
 * a container such as Karaf, ending the shell must not stop the container, so nothing is
 * registered there and the container's own {@code exit} stays in charge.
 */
@Component(immediate = true)
public final class ExitCommand {

    /** The framework property that says this framework is the dat application. */
    static final String APPLICATION = "dat.application";
    /** The name Gogo's shell bundle gives the thread of its console. */
    private static final String CONSOLE_THREAD = "Gogo shell";
    /** How long the stop waits for the console thread to be back from this command. */
    private static final long CONSOLE_PATIENCE_NANOS = 2_000_000_000L;

    private final BundleContext context;
    private final ServiceRegistration<ExitCommand> registration;

    /** @param context this bundle's context */
    @Activate
    public ExitCommand(BundleContext context) {
        this.context = context;
        if (!Boolean.parseBoolean(context.getProperty(APPLICATION))) {
            registration = null;
            return;
        }
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("osgi.command.scope", HelpCommand.SCOPE);
        properties.put("osgi.command.function", "exit");
        registration = context.registerService(ExitCommand.class, this, properties);
    }

    @Deactivate
    void deactivate() {
        if (registration != null) {
            try {
                registration.unregister();
            } catch (IllegalStateException e) {
                // unregistered with the bundle already
            }
        }
    }

    @Command(name = "exit", description = "Leave the dat shell: the application stops and exits with STATUS.")
    static final class ExitOptions {
        @Parameters(arity = "0..1", paramLabel = "STATUS", defaultValue = "0", description = "the exit status, 0 to 255 (default 0)")
        int status;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
        boolean help;
    }

    /**
     * Stops the application, which then exits with the status.
     *
     * @param args the status, or nothing for 0
     */
    @Descriptor("leave the dat shell: the application stops (exit [STATUS])")
    public void exit(@Descriptor("[STATUS]") String... args) {
        CommandLine cli = Cli.parse(new ExitOptions(), args);
        if (cli.isUsageHelpRequested()) {
            Cli.print(Cli.usage(cli));
            return;
        }
        int status = cli.<ExitOptions>getCommand().status;
        if (status < 0 || status > 255) {
            throw Cli.error(cli, "STATUS is 0 to 255, not " + status);
        }
        ExitStatus.write(context.getProperty(ExitStatus.FILE), status);
        Thread console = consoleThread();
        Thread.ofPlatform().name("dat-exit").start(() -> {
            awaitConsoleBack(console);
            try {
                context.getBundle(0).stop();
            } catch (BundleException | IllegalStateException e) {
                System.err.println("dat: exit: cannot stop the application: " + e.getMessage());
            }
        });
    }

    /** The Gogo shell's console thread (the one that runs this command line and waits for it), or {@code null} where none runs. */
    private static Thread consoleThread() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (CONSOLE_THREAD.equals(t.getName())) {
                return t;
            }
        }
        return null;
    }

    /**
     * The framework's stop ends the shell by interrupting its console thread, which Gogo reports as
     * an {@code InterruptedException} while that thread still waits for this command's job to end.
     * So the stop begins once the console thread left that wait, after {@link #CONSOLE_PATIENCE_NANOS}
     * at most.
     */
    private static void awaitConsoleBack(Thread console) {
        long start = System.nanoTime();
        while (console != null && console.getState() == Thread.State.WAITING && System.nanoTime() - start < CONSOLE_PATIENCE_NANOS) {
            LockSupport.parkNanos(1_000_000);
        }
    }
}
