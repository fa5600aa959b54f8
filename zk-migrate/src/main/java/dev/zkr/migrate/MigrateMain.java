package dev.zkr.migrate;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The command line behind {@code bin/zkr-server import-zookeeper} and {@code export-zookeeper}:
 *
 * <pre>
 * import-zookeeper --from &lt;ZooKeeper dataDir&gt; [--from-log &lt;ZooKeeper dataLogDir&gt;] --to &lt;zkr dataDir&gt;
 * export-zookeeper --from &lt;zkr dataDir&gt; [--from-log &lt;zkr dataLogDir&gt;] --to &lt;ZooKeeper dataDir&gt;
 * </pre>
 *
 * Exit status 0 done, 1 the input or target was refused (one line saying why; nothing written), 2 usage.
 */
public final class MigrateMain {

    static final String USAGE = """
            usage: zkr-server import-zookeeper --from <ZooKeeper dataDir> [--from-log <ZooKeeper dataLogDir>] --to <zkr dataDir>
                   zkr-server export-zookeeper --from <zkr dataDir> [--from-log <zkr dataLogDir>] --to <ZooKeeper dataDir>
            Stop the server whose data is read first. --to must not exist or be empty; nothing is written unless
            everything could be (docs/migration.md).""";

    private MigrateMain() {
    }

    public static void main(String[] args) {
        // ZooKeeper's classes log their start-up banner and every file they read at INFO: only its warnings here
        // (slf4j-simple reads this when the first logger is made; -D on the command line wins)
        if (System.getProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper", "warn");
        }
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a command; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.println(USAGE);
            return 2;
        }
        String command = args[0];
        Set<String> allowed = switch (command) {
            case "import-zookeeper" -> Set.of("--from", "--from-log", "--to");
            case "export-zookeeper" -> Set.of("--from", "--from-log", "--to");
            default -> null;
        };
        if (allowed == null) {
            err.println("zkr-server: unknown command " + command);
            err.println(USAGE);
            return 2;
        }
        Map<String, Path> opts = new HashMap<>();
        for (int i = 1; i < args.length; i += 2) {
            if (!allowed.contains(args[i]) || i + 1 >= args.length || opts.containsKey(args[i])) {
                err.println("zkr-server " + command + ": bad argument " + args[i]);
                err.println(USAGE);
                return 2;
            }
            opts.put(args[i], Path.of(args[i + 1]));
        }
        if (!opts.containsKey("--from") || !opts.containsKey("--to")) {
            err.println("zkr-server " + command + ": --from and --to are required");
            err.println(USAGE);
            return 2;
        }
        Path to = opts.get("--to");
        try {
            if (command.equals("import-zookeeper")) {
                ZooKeeperImport.Result r = ZooKeeperImport.run(opts.get("--from"), opts.get("--from-log"), to);
                out.printf("imported ZooKeeper data from %s: snapshot 0x%x + %d logged txn(s), last zxid 0x%x%n",
                        opts.get("--from"), r.snapshotZxid(), r.txnsReplayed(), r.zxid());
                out.printf("  %d node(s) (%d ephemeral, %d container, %d TTL), %d live session(s)%n", r.nodes(),
                        r.ephemerals(), r.containers(), r.ttlNodes(), r.sessions());
                if (r.serverId() > 0) {
                    out.printf("  server id %d (ZooKeeper's myid): copied, with the vote state a member of a zkr "
                            + "ensemble starts from%n", r.serverId());
                }
                for (String note : r.notes()) {
                    out.println("  note: " + note);
                }
                out.println("wrote zkr data directory " + to + " (start zkr with dataDir=" + to + ")");
            } else {
                ZooKeeperExport.Result r = ZooKeeperExport.run(opts.get("--from"), opts.get("--from-log"), to);
                out.printf("exported zkr data from %s: last zxid 0x%x, %d node(s) (ZooKeeper's /zookeeper nodes "
                        + "included), %d session(s)%n", opts.get("--from"), r.zxid(), r.nodes(), r.sessions());
                out.println("wrote ZooKeeper snapshot " + r.snapshot() + " (start ZooKeeper with dataDir=" + to + ")");
            }
            return 0;
        } catch (MigrationException e) {
            err.println("zkr-server " + command + ": " + e.getMessage());
            err.println("zkr-server " + command + ": nothing was written to " + to);
            return 1;
        }
    }
}
