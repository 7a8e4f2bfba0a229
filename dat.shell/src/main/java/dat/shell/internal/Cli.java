package dat.shell.internal;

import dat.api.DatException;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.InterfaceAdapter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;

/**
 * How the dat commands read their arguments: picocli, set up the same way for each. A command
 * method takes its arguments as Gogo passes them ({@code String...}), so that Gogo never has to
 * match them to parameters, and hands them to {@link #parse}; {@code -h}/{@code --help} gives the
 * usage as the command's result, and a usage error is a {@link CommandLine.ParameterException}
 * naming the argument (the {@code ./dat} launcher exits with 2 on it).
 */
public final class Cli {

    private Cli() {
    }

    /**
     * Parses the arguments into {@code spec}, a picocli {@code @Command} object.
     *
     * @param spec the command's options object
     * @param args the arguments
     * @return the parsed command line; {@link CommandLine#isUsageHelpRequested()} says whether
     *         {@code --help} was asked, {@link #usage} gives the text then
     * @throws CommandLine.ParameterException on an unknown option, a missing or bad value, an
     *         argument too many
     */
    public static CommandLine parse(Object spec, String... args) {
        CommandLine cli = new CommandLine(spec)
                .setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF))
                .setExpandAtFiles(false)
                .setUsageHelpWidth(100)
                .setUsageHelpLongOptionsMaxWidth(28);
        cli.getCommandSpec().usageMessage().synopsisHeading("usage: dat ").abbreviateSynopsis(true);
        // errors are collected, not thrown at the first, so that an unknown option is the one
        // reported rather than the missing argument it displaced
        cli.getCommandSpec().parser().collectErrors(true);
        List<Exception> errors = cli.parseArgs(args == null ? new String[0] : args).errors();
        if (!errors.isEmpty()) {
            Exception first = errors.stream().filter(e -> !(e instanceof CommandLine.MissingParameterException)).findFirst()
                    .orElse(errors.getFirst());
            throw first instanceof CommandLine.ParameterException parameter ? parameter : error(cli, first.getMessage());
        }
        return cli;
    }

    /**
     * @param cli a parsed command line
     * @return its usage text
     */
    public static String usage(CommandLine cli) {
        return cli.getUsageMessage();
    }

    /**
     * Opens the IA a command works on. A name no provider offers fails in one line that names the
     * command listing the names, as every command says it.
     *
     * @param registry the DAT registry
     * @param iaName the IA's name
     * @return the open IA
     * @throws IllegalStateException for a name no provider offers ({@code DAT_PROVIDER_NOT_FOUND})
     * @throws DatException for any other failure to open it
     */
    public static InterfaceAdapter openIa(DatRegistry registry, String iaName) {
        try {
            return registry.openIa(iaName);
        } catch (DatException e) {
            if (e.type() == DatReturn.PROVIDER_NOT_FOUND) {
                throw new IllegalStateException("cannot open IA '" + iaName + "': " + e.getMessage() + "; 'dat providers' lists the IAs", e);
            }
            throw e;
        }
    }

    /**
     * A usage error found after parsing: a value out of range, options that exclude each other.
     *
     * @param cli the parsed command line
     * @param message what is wrong, naming the argument
     * @return the exception to throw
     */
    public static CommandLine.ParameterException error(CommandLine cli, String message) {
        return new CommandLine.ParameterException(cli, message);
    }

    /** An IA name as a command takes it: not blank, which no IA is named (a usage error, not a failed dat_ia_open). */
    public static final class IaName implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String text) {
            if (text.isBlank()) {
                throw new CommandLine.TypeConversionException("needs an IA name, not '" + text + "' ('dat providers' lists them)");
            }
            return text;
        }
    }

    /** A file name as a command takes it: not blank, which names no file (a usage error, not a failed read). */
    public static final class FileName implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String text) {
            if (text.isBlank()) {
                throw new CommandLine.TypeConversionException("needs a file name, not '" + text + "'");
            }
            return text;
        }
    }

    /**
     * Checks, before a command starts its work, that it will be able to write a file it was asked
     * to write: its directory exists and is writable, and the file, where it exists, is a writable
     * regular file.
     *
     * @param cli the parsed command line
     * @param option the option that named the file
     * @param file the file, or {@code null} when the option was not given
     * @throws CommandLine.ParameterException when the file could not be written
     */
    public static void checkOutput(CommandLine cli, String option, Path file) {
        if (file == null) {
            return;
        }
        Path absolute = file.toAbsolutePath();
        Path directory = absolute.getParent();
        if (directory == null || Files.isDirectory(absolute)) {
            throw error(cli, option + " " + file + ": is a directory");
        }
        if (!Files.isDirectory(directory)) {
            throw error(cli, option + " " + file + ": the directory " + directory + " does not exist");
        }
        if (Files.exists(absolute) && (!Files.isRegularFile(absolute) || !Files.isWritable(absolute))) {
            throw error(cli, option + " " + file + ": cannot be written");
        }
        if (!Files.exists(absolute) && !Files.isWritable(directory)) {
            throw error(cli, option + " " + file + ": the directory " + directory + " cannot be written");
        }
    }

    /**
     * Prints a command's output to its session: {@code System.out}, which Gogo and Karaf's shell
     * give each command's thread. A command prints rather than returning its text, because a shell
     * running one command (Karaf's {@code bin/client CMD}, SSH exec) does not print results.
     *
     * @param text the output
     */
    public static void print(String text) {
        System.out.print(text.isEmpty() || text.endsWith("\n") ? text : text + "\n");
        System.out.flush();
    }
}
