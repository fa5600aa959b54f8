package dev.zkr.cli.shell;

import dev.zkr.cli.ExitCode;
import dev.zkr.cli.Formats;
import dev.zkr.cli.Session;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.cli.Zkr;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.reader.impl.DefaultParser;
import org.jline.terminal.Terminal;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The interactive session: reads lines with JLine (history in a file, tab completion of commands and paths,
 * quoting as in a Unix shell, {@link ShellWords}: {@code create /a "two words"}) and runs each as a {@code zkr} command on one shared
 * {@link Session}, so ephemeral nodes live until the shell ends. A failing command prints its one error line and
 * the shell goes on; {@code exit}, {@code quit} or Ctrl-D end it; Ctrl-C stops a running command (e.g. a watch).
 */
public final class Shell {

    private final Terminal terminal;
    private final Session session;
    private final Path historyFile;

    public Shell(Terminal terminal, Session session, Path historyFile) {
        this.terminal = terminal;
        this.session = session;
        this.historyFile = historyFile;
    }

    /** Runs until end of input or {@code exit}; returns the exit code of the last command. */
    public int run() {
        PrintWriter out = terminal.writer();
        List<String> commands = new ArrayList<>(
                Zkr.commandLine(new Zkr(session), out, out).getSubcommands().keySet());
        commands.remove("shell");
        commands.add("exit");
        commands.add("quit");
        DefaultParser parser = new DefaultParser();
        parser.setEscapeChars(new char[] {'\\'});
        LineReader reader = LineReaderBuilder.builder()
                .terminal(terminal)
                .appName("zkr")
                .parser(parser)
                .completer(new ZkrCompleter(commands, session))
                .variable(LineReader.HISTORY_FILE, historyFile)
                // no history expansion: it would eat backslashes (my\ node) and '!' in data
                .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
                .build();
        String prompt = "zkr " + session.server() + "> ";
        ConnectionStateListener notes = (c, state) -> reader.printAbove(note(state, c.sessionId()));
        // off the client's event thread: printing waits for the terminal
        ExecutorService printer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "zkr-shell-notes");
            t.setDaemon(true);
            return t;
        });
        session.client().addConnectionStateListener(notes, printer);
        int last = 0;
        try {
            while (true) {
                String line;
                try {
                    line = reader.readLine(prompt);
                } catch (UserInterruptException e) {
                    continue; // Ctrl-C at the prompt drops the line
                } catch (EndOfFileException e) {
                    break;
                }
                List<String> words;
                try {
                    words = ShellWords.split(line);
                } catch (IllegalArgumentException e) {
                    out.println("zkr: " + e.getMessage());
                    last = ExitCode.USAGE;
                    continue;
                }
                if (words.isEmpty()) {
                    continue;
                }
                if (words.get(0).equals("exit") || words.get(0).equals("quit")) {
                    break;
                }
                if (words.get(0).equals("shell")) {
                    out.println("already in the shell");
                    continue;
                }
                last = execute(words, out);
            }
        } finally {
            session.client().removeConnectionStateListener(notes);
            printer.shutdown();
            try {
                reader.getHistory().save();
            } catch (IOException e) {
                out.println("zkr: could not save the history to " + historyFile + ": " + e.getMessage());
            }
            out.flush();
        }
        return last;
    }

    /** What the shell tells its user when the connection changes (printed above the prompt). */
    static String note(ConnectionState state, long sessionId) {
        return switch (state) {
            case SUSPENDED -> "zkr: connection lost, reconnecting (the session may still live)";
            case RECONNECTED -> "zkr: reconnected, same session";
            case LOST -> "zkr: session expired: this shell's ephemeral nodes and watches are gone";
            case CONNECTED -> "zkr: new session " + Formats.hex(sessionId);
        };
    }

    /** Runs one command; Ctrl-C interrupts it (a watch stops, a wait ends). */
    private int execute(List<String> words, PrintWriter out) {
        CommandLine cl = Zkr.commandLine(new Zkr(session), out, out);
        Thread runner = Thread.currentThread();
        AtomicBoolean interrupted = new AtomicBoolean();
        Terminal.SignalHandler previous = terminal.handle(Terminal.Signal.INT, s -> {
            interrupted.set(true);
            runner.interrupt();
        });
        try {
            return cl.execute(words.toArray(String[]::new));
        } finally {
            terminal.handle(Terminal.Signal.INT, previous);
            Thread.interrupted(); // an interrupt that came after the command ended must not hit the next prompt
            if (interrupted.get()) {
                out.println(); // the terminal echoed ^C where the cursor was: the next prompt starts a line
            }
            out.flush();
        }
    }
}
