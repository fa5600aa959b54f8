package dev.zkr.server.port;

import dev.zkr.consensus.Role;
import dev.zkr.consensus.RoleInfo;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.round.Core;
import dev.zkr.server.zookeeper.FourLetterReplies;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.WatchTable;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Answers ZooKeeper's four-letter words on the client port: a word outside {@code 4lw.commands.whitelist} gets
 * ZooKeeper's "not in the whitelist" line; an allowed one its answer ({@link FourLetterReplies}) from the server's
 * state, gathered off the event loop (a directory walk for {@code dirs}, a round for the watch counts); then the
 * connection is closed, as ZooKeeper closes it.
 */
final class FourLetterAnswers {

    private static final Logger log = LoggerFactory.getLogger(FourLetterAnswers.class);
    /** How long a word waits for the round's watch counts before it reports them unknown (-1). */
    private static final long ROUND_TIMEOUT_MS = 2_000;

    private final ServerConfig config;
    private final Core core;
    private final DataTree tree;
    private final WatchTable watches;
    private final ServerChannelInitializer connections;
    private final long startedAt = System.nanoTime();
    private final String version = version();
    /** The port the server listens on (set once bound: the actual one for port 0). */
    private volatile int port;

    FourLetterAnswers(ServerConfig config, Core core, DataTree tree, WatchTable watches,
                      ServerChannelInitializer connections) {
        this.config = config;
        this.core = core;
        this.tree = tree;
        this.watches = watches;
        this.connections = connections;
        this.port = config.port();
    }

    void bound(int port) {
        this.port = port;
    }

    /** Answers {@code word} on the connection and closes it (event loop). */
    void answer(ChannelHandlerContext ctx, String word) {
        Channel ch = ctx.channel();
        if (!dev.zkr.server.zookeeper.FirstFrame.knownWords().contains(word)) {
            ch.close(); // telnet's close sequence: ZooKeeper closes too
            return;
        }
        if (!config.fourLetterWords().contains(word)) {
            log.debug("four-letter word {} from {} refused: not in 4lw.commands.whitelist", word, ch.remoteAddress());
            write(ch, FourLetterReplies.notWhitelisted(word));
            return;
        }
        log.debug("four-letter word {} from {}", word, ch.remoteAddress());
        GlobalEventExecutor.INSTANCE.execute(() -> {
            String answer;
            try {
                answer = FourLetterReplies.answer(word, facts(word));
            } catch (RuntimeException e) {
                log.warn("four-letter word {} from {} failed: {}", word, ch.remoteAddress(), e.toString());
                ch.close();
                return;
            }
            write(ch, answer != null ? answer : word + " is not implemented by this server (zkr).\n");
        });
    }

    private static void write(Channel ch, String text) {
        ch.writeAndFlush(Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)))
                .addListener(ChannelFutureListener.CLOSE);
    }

    /** The server's state as the words report it (off the event loop: may walk directories, wait for a round). */
    FourLetterReplies.Facts facts(String word) {
        RoleInfo role = core.role();
        boolean serving = core.servingNow();
        String mode = !config.isEnsemble() ? "standalone" : role.role() == Role.LEADER ? "leader" : "follower";
        List<FourLetterReplies.Client> clients = connections.describeAll();
        long received = connections.closedReceived();
        long sent = connections.closedSent();
        long outstanding = 0;
        for (FourLetterReplies.Client c : clients) {
            received += c.received();
            sent += c.sent();
            outstanding += c.queued();
        }
        int[] w = {-1, -1, -1};
        if (serving && (word.equals("wchs") || word.equals("mntr"))) {
            try {
                w = core.query(() -> {
                    WatchTable.Summary s = watches.summary(0);
                    return new int[] {s.bySession().size(), s.paths(), s.total()};
                }, ROUND_TIMEOUT_MS);
            } catch (IllegalStateException late) {
                // reported as unknown
            }
        }
        Path snapshots = config.dataDir().resolve("snapshots");
        Path logDir = config.logDir();
        boolean sizes = word.equals("dirs") || word.equals("conf");
        long dataDirSize = sizes ? size(snapshots) : 0;
        long logDirSize = sizes ? size(logDir) : 0;
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("clientPort", String.valueOf(config.tls() == null || config.portUnification() ? port : -1));
        conf.put("secureClientPort", String.valueOf(config.tls() == null ? -1 : port));
        conf.put("dataDir", snapshots.toAbsolutePath().toString());
        conf.put("dataDirSize", String.valueOf(dataDirSize));
        conf.put("dataLogDir", logDir.toAbsolutePath().toString());
        conf.put("dataLogSize", String.valueOf(logDirSize));
        conf.put("tickTime", String.valueOf(config.tickTimeMs()));
        conf.put("maxClientCnxns", String.valueOf(config.maxConnectionsPerHost()));
        conf.put("minSessionTimeout", String.valueOf(config.minSessionTimeoutMs()));
        conf.put("maxSessionTimeout", String.valueOf(config.maxSessionTimeoutMs()));
        conf.put("clientPortListenBacklog", String.valueOf(NettyServer.BACKLOG));
        conf.put("serverId", String.valueOf(config.serverId()));
        List<String> membership = new ArrayList<>();
        config.members().forEach(m -> membership.add("server." + m.id() + "=" + m.line()));
        LatencyStats.Snapshot latency = connections.latency().snapshot();
        return new FourLetterReplies.Facts(serving, mode, version, clients, received, sent, outstanding,
                tree.lastZxid(), nodeCount(), w[0], w[1], w[2], tree.ephemeralTotal(), tree.approximateBytes(),
                tree.sessionCount(), (System.nanoTime() - startedAt) / 1_000_000, dataDirSize, logDirSize, conf,
                membership, latency.min(), latency.avg(), latency.max());
    }

    /**
     * The nodes as ZooKeeper counts them ({@code DataTree.getNodeCount}, its node map's size): the clients' nodes, the
     * root twice (ZooKeeper maps it under "" and "/") and ZooKeeper's three {@code /zookeeper} nodes, which zkr shows
     * over its tree ({@link dev.zkr.tree.SystemNodes}): 5 on an empty server, as ZooKeeper 3.9 says.
     */
    private int nodeCount() {
        return tree.nodeCount() + 1 + (tree.contains(dev.zkr.tree.SystemNodes.ZOOKEEPER) ? 0 : 3);
    }

    /** Bytes of the files under {@code dir} (0 if it is missing). */
    private static long size(Path dir) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException gone) {
                    return 0; // removed meanwhile (a log segment or snapshot retired)
                }
            }).sum();
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }

    /** zkr's version (from the jar's build), or "dev". */
    private static String version() {
        String v = FourLetterAnswers.class.getPackage().getImplementationVersion();
        if (v == null) {
            try (var in = FourLetterAnswers.class.getResourceAsStream("/dev/zkr/server/version.properties")) {
                if (in != null) {
                    java.util.Properties p = new java.util.Properties();
                    p.load(in);
                    v = p.getProperty("version");
                }
            } catch (IOException e) {
                v = null;
            }
        }
        return v == null || v.startsWith("${") ? "dev" : v;
    }
}
