package dev.zkr.cli.shell;

import dev.zkr.cli.Zkr;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code shell}: the interactive session ({@link Shell}) on the system terminal. */
@Command(name = "shell", mixinStandardHelpOptions = true,
        description = "An interactive session: history, tab completion of commands and paths, one session.")
public final class ShellCommand implements Callable<Integer> {

    @ParentCommand
    Zkr root;

    @Option(names = "--history", paramLabel = "FILE",
            description = "History file (default: $ZKR_HISTORY, else ~/.zkr_history).")
    Path history;

    @Override
    public Integer call() {
        return runFor(root);
    }

    /** Connects (failing fast if no server answers), then runs the shell on the system terminal. */
    public int runFor(Zkr root) {
        root.session().client();
        Path file = HistoryFile.resolve(history, System.getenv("ZKR_HISTORY"), System.getProperty("user.home"));
        // dumb(true): fed from a pipe (no tty), a plain terminal without JLine's warning
        try (Terminal terminal = TerminalBuilder.builder().system(true).dumb(true).build()) {
            return new Shell(terminal, root.session(), file).run();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the terminal: " + e.getMessage(), e);
        }
    }
}
