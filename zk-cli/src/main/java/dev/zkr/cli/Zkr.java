package dev.zkr.cli;

import dev.zkr.cli.inspect.BarrierCommand;
import dev.zkr.cli.inspect.CounterCommand;
import dev.zkr.cli.inspect.GroupCommand;
import dev.zkr.cli.inspect.LeaderCommand;
import dev.zkr.cli.inspect.LocksCommand;
import dev.zkr.cli.inspect.QueueCommand;
import dev.zkr.cli.shell.ShellCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * The {@code zkr} command-line tool: {@code zkr --server host:port[,...] <command>} for one-shot use in scripts
 * (exit codes in {@link ExitCode}, {@code --json} output, one line on stderr per error), or {@code zkr shell}
 * (also: no command) for an interactive session. Global options may stand before or after the command.
 */
@Command(name = "zkr", mixinStandardHelpOptions = true, versionProvider = Zkr.Version.class,
        description = "Inspect and change a zkr (or, with --apache, an Apache ZooKeeper) ensemble.",
        subcommands = {LsCommand.class, TreeCommand.class, GetCommand.class, SetCommand.class, CreateCommand.class,
                DeleteCommand.class, DeleteAllCommand.class, StatCommand.class, WatchCommand.class,
                GetAclCommand.class, SetAclCommand.class, AddAuthCommand.class,
                SyncCommand.class, MembersCommand.class, ReconfigCommand.class, LocksCommand.class, LeaderCommand.class, BarrierCommand.class,
                GroupCommand.class, QueueCommand.class, CounterCommand.class, ShellCommand.class,
                CommandLine.HelpCommand.class})
public final class Zkr implements Callable<Integer> {

    @Option(names = "--server", scope = ScopeType.INHERIT, paramLabel = "HOST:PORT[,...]",
            defaultValue = "${env:ZKR_SERVER:-127.0.0.1:2181}",
            description = "Servers to connect to (default: $ZKR_SERVER, else ${DEFAULT-VALUE}).")
    String server;

    @Option(names = "--apache", scope = ScopeType.INHERIT,
            description = "Connect through the Apache ZooKeeper client (to a ZooKeeper ensemble).")
    boolean apache;

    @Option(names = "--timeout", scope = ScopeType.INHERIT, paramLabel = "DURATION", defaultValue = "10s",
            converter = DurationConverter.class,
            description = "How long to wait for a session and for each request, e.g. 500ms, 10s, 1m (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--auth", scope = ScopeType.INHERIT, paramLabel = "SCHEME:AUTH",
            description = "Authenticate before the command, e.g. --auth digest:bob:secret (repeatable; in the shell: "
                    + "for the rest of the session, as addauth).")
    java.util.List<String> auth = new java.util.ArrayList<>();

    @Option(names = "--json", scope = ScopeType.INHERIT, description = "Print results as JSON.")
    boolean json;

    @Option(names = "--hex", scope = ScopeType.INHERIT, description = "Node data in and out as hex.")
    boolean hex;

    @Option(names = "--base64", scope = ScopeType.INHERIT, description = "Node data in and out as base64.")
    boolean base64;

    @Spec
    CommandSpec spec;

    /** Set by the shell: every command of the session uses it; null in one-shot use (opened on demand). */
    private final Session shared;
    private Session own;

    /** The root of a one-shot command line: the session is opened on demand and closed by {@link #run}. */
    public Zkr() {
        this(null);
    }

    /** The root of a command line whose commands use the given (shell) session. */
    public Zkr(Session shared) {
        this.shared = shared;
    }

    /** No command: the interactive shell. */
    @Override
    public Integer call() {
        return new ShellCommand().runFor(this);
    }

    /** The session the commands use. */
    public synchronized Session session() {
        if (shared != null) {
            return shared;
        }
        if (own == null) {
            own = new Session(server, apache, timeout, auth);
        }
        return own;
    }

    /**
     * The client for a command: the session's, with this command line's {@code --auth} sent first. On a shell's
     * session the client exists already, so they are added to it ({@code addAuthInfo}) and stay for the session.
     */
    synchronized dev.zkr.client.ZkClient client() {
        dev.zkr.client.ZkClient c = session().client();
        if (shared != null) {
            for (String a : auth) {
                AclSyntax.Auth parsed = AclSyntax.parseAuth(a);
                c.addAuthInfo(parsed.scheme(), parsed.auth());
            }
        }
        return c;
    }

    /** The output settings of this command line, writing to the given command's stdout. */
    public Output output(CommandSpec command) {
        if (hex && base64) {
            throw new UsageException("--hex and --base64 exclude each other");
        }
        DataFormat f = hex ? DataFormat.HEX : base64 ? DataFormat.BASE64 : DataFormat.TEXT;
        CommandLine cl = command.commandLine();
        return new Output(cl.getOut(), cl.getErr(), json, f);
    }

    private synchronized void closeOwn() {
        if (own != null) {
            own.close();
            own = null;
        }
    }

    /** A command line over this root: errors are one line on stderr, mapped to {@link ExitCode}s. */
    public static CommandLine commandLine(Zkr root, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(root);
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine failed = ex.getCommandLine();
            String name = failed.getCommandSpec().qualifiedName(" ");
            String hint = ex instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()
                    ? "did you mean " + String.join(" or ", u.getSuggestions()) + "?"
                    : "see '" + name + " --help'";
            err.println(name + ": " + ex.getMessage() + " (" + hint + ")");
            err.flush();
            return ExitCode.USAGE;
        });
        cl.setExecutionExceptionHandler((ex, failed, parsed) -> {
            Failures.Failure f = Failures.of(ex, root.session().server());
            err.println("zkr " + failed.getCommandName() + ": " + f.message());
            err.flush();
            return f.exitCode();
        });
        return cl;
    }

    /** Runs one command line (one session, closed at the end) and returns its exit code. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        Zkr root = new Zkr();
        try {
            return commandLine(root, out, err).execute(args);
        } finally {
            root.closeOwn();
            out.flush();
            err.flush();
        }
    }

    public static void main(String[] args) {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            // client libraries log connection trouble at WARN with stack traces; zkr prints one line instead
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "off");
        }
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        System.exit(run(args, out, err));
    }

    /** Parses {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h} or plain seconds, or ISO-8601 ({@code PT10S}). */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String s) {
            String v = s.strip().toLowerCase();
            try {
                if (v.startsWith("pt")) {
                    return Duration.parse(s.strip());
                }
                if (v.endsWith("ms")) {
                    return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
                }
                if (v.endsWith("s")) {
                    return Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
                }
                if (v.endsWith("m")) {
                    return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)) * 60);
                }
                if (v.endsWith("h")) {
                    return Duration.ofHours(Long.parseLong(v.substring(0, v.length() - 1)));
                }
                return Duration.ofMillis(Math.round(Double.parseDouble(v) * 1000));
            } catch (RuntimeException e) {
                throw new CommandLine.TypeConversionException("not a duration: '" + s + "' (e.g. 500ms, 10s, 1m)");
            }
        }
    }

    /** The version from the jar's manifest (the Maven project version), or "dev" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Zkr.class.getPackage().getImplementationVersion();
            return new String[] {"zkr " + (v == null ? "dev" : v)};
        }
    }
}
