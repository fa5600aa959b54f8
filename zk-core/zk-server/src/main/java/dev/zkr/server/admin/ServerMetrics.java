package dev.zkr.server.admin;

import dev.zkr.server.port.NettyServer;
import dev.zkr.server.port.RequestMetrics;
import dev.zkr.wire.Message;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Supplier;

/**
 * The server's Prometheus metrics (one registry per server, so several servers of one JVM do not mix). Histograms and
 * counters on the request path are the Prometheus client's lock-free ones, recorded once per reply, per fsync or per
 * commit; everything else is a gauge read at scrape time from a {@link ServerState} taken once per scrape.
 * Exists only when the admin endpoint is configured: without it the hooks are not called at all.
 */
public final class ServerMetrics implements RequestMetrics {

    /** The operation label of each request type, in the order of {@link #opIndex}. */
    static final List<String> OPS = List.of("create", "delete", "exists", "getData", "setData", "getChildren",
            "multi", "sync", "addWatch", "removeWatches", "setWatches", "ping", "closeSession", "other");

    private static final ClassValue<Integer> OP_INDEX = new ClassValue<>() {
        @Override
        protected Integer computeValue(Class<?> type) {
            String name = type.getSimpleName();
            String op = name.endsWith("Request") ? name.substring(0, name.length() - "Request".length()) : name;
            op = Character.toLowerCase(op.charAt(0)) + op.substring(1);
            if (op.equals("createAcl")) {
                op = "create"; // a create with its ACL (every ZooKeeper client's create) is a create
            }
            int i = OPS.indexOf(op);
            return i < 0 ? OPS.size() - 1 : i;
        }
    };

    /** Latency buckets (seconds) for requests and commits: 50 µs to 10 s. */
    private static final double[] LATENCY_BUCKETS = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
            0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10};
    /** Records per fsync: 1 to 4096. */
    private static final double[] BATCH_BUCKETS = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096};

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final DistributionDataPoint[] requestLatency;
    private final Histogram fsync;
    private final Histogram batchSize;
    private final Histogram snapshot;
    private final Histogram commit;
    private final java.util.function.LongSupplier outstanding;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    /** The state the gauges of the scrape in progress read (admin thread only). */
    private ServerState state;

    /**
     * @param elections     how many elections this server took part in (times it became a candidate)
     * @param leaderChanges how many times the leader it knows changed
     */
    ServerMetrics(Supplier<Long> elections, Supplier<Long> leaderChanges) {
        this(elections, leaderChanges, () -> 0);
    }

    /**
     * @param elections     how many elections this server took part in (times it became a candidate)
     * @param leaderChanges how many times the leader it knows changed
     * @param outstanding   client requests read and not yet answered, summed over the connections at scrape time
     */
    public ServerMetrics(Supplier<Long> elections, Supplier<Long> leaderChanges,
                         java.util.function.LongSupplier outstanding) {
        this.outstanding = outstanding;
        Histogram requests = Histogram.builder().name("zkr_request_duration_seconds")
                .help("Client requests by operation: time from reading the request to writing its reply (the "
                        + "_count is the request count: rate() it for the request rate)")
                .unit(Unit.SECONDS).labelNames("op").classicOnly().classicUpperBounds(LATENCY_BUCKETS)
                .withoutExemplars().register(registry);
        requestLatency = new DistributionDataPoint[OPS.size()];
        for (int i = 0; i < OPS.size(); i++) {
            requestLatency[i] = requests.labelValues(OPS.get(i));
        }
        fsync = Histogram.builder().name("zkr_fsync_duration_seconds")
                .help("Time of each fsync of a group-committed batch of log records").unit(Unit.SECONDS)
                .classicOnly().classicUpperBounds(LATENCY_BUCKETS).withoutExemplars().register(registry);
        batchSize = Histogram.builder().name("zkr_group_commit_batch_size")
                .help("Log records written and fsynced together (one group commit)").classicOnly()
                .classicUpperBounds(BATCH_BUCKETS).withoutExemplars().register(registry);
        snapshot = Histogram.builder().name("zkr_snapshot_duration_seconds")
                .help("Time to write a snapshot of the tree").unit(Unit.SECONDS).classicOnly()
                .classicUpperBounds(0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300).withoutExemplars()
                .register(registry);
        commit = Histogram.builder().name("zkr_proposal_commit_seconds")
                .help("Leader: time from proposing a txn to its commit (a quorum has it durable)").unit(Unit.SECONDS)
                .classicOnly().classicUpperBounds(LATENCY_BUCKETS).withoutExemplars().register(registry);
        GaugeWithCallback.builder().name("zkr_outstanding_requests")
                .help("Client requests read and not yet answered")
                .callback(cb -> cb.call(outstanding.getAsLong())).register(registry);
        gauge("zkr_znodes", "Nodes in the tree, the root included", s -> s.znodes());
        gauge("zkr_approximate_data_bytes", "Approximate bytes in the tree (node data plus paths)",
                s -> s.dataBytes());
        gauge("zkr_sessions", "Live sessions (the ensemble's, as this server knows them)", s -> s.sessions());
        gauge("zkr_watches", "Watches registered on this server (session, path, kind)", s -> s.watches());
        gauge("zkr_ephemerals", "Ephemeral nodes", s -> s.ephemerals());
        gauge("zkr_connections", "Open client connections", s -> s.connections());
        gauge("zkr_last_zxid", "The zxid of the last applied txn", s -> s.zxid());
        gauge("zkr_serving", "1 while this server serves clients, else 0", s -> s.serving() ? 1 : 0);
        gauge("zkr_leader_id", "The leader this server knows of (its own id when it leads), -1 if none",
                s -> s.leaderId());
        gauge("zkr_epoch", "The current epoch", s -> s.epoch());
        GaugeWithCallback.builder().name("zkr_role")
                .help("This server's role: 1 for the current one (leader, follower or candidate)")
                .labelNames("role").callback(cb -> {
                    ServerState s = state;
                    if (s != null) {
                        for (String r : List.of("leader", "follower", "candidate")) {
                            cb.call(r.equals(s.roleName()) ? 1 : 0, r);
                        }
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("zkr_follower_lag_txns")
                .help("Leader: txns each follower has not acknowledged yet (approximate across epochs)")
                .labelNames("follower").callback(cb -> {
                    ServerState s = state;
                    if (s != null) {
                        s.followers().forEach(f -> cb.call(f.lagTxns(), Integer.toString(f.id())));
                    }
                }).register(registry);
        CounterWithCallback.builder().name("zkr_elections")
                .help("Elections this server took part in as a candidate since it started")
                .callback(cb -> cb.call(elections.get())).register(registry);
        CounterWithCallback.builder().name("zkr_leader_changes")
                .help("Times the leader this server knows of changed since it started")
                .callback(cb -> cb.call(leaderChanges.get())).register(registry);
    }

    /** The outstanding-requests source, set once the connections exist (they need the metrics first). */
    public static final class Outstanding implements java.util.function.LongSupplier {
        private volatile NettyServer connections;

        public void from(NettyServer c) {
            this.connections = c;
        }

        @Override
        public long getAsLong() {
            NettyServer c = connections;
            return c == null ? 0 : c.outstandingRequests();
        }
    }

    private interface Reading {
        double of(ServerState s);
    }

    private void gauge(String name, String help, Reading reading) {
        GaugeWithCallback.builder().name(name).help(help).callback(cb -> {
            ServerState s = state;
            if (s != null) {
                cb.call(reading.of(s));
            }
        }).register(registry);
    }

    // ---- the request path: cheap, lock-free ----

    /** The index of a request's operation label (a class lookup). */
    static int opIndex(Message.Request r) {
        if (r instanceof Message.AckedRequest a && a.request() != null) {
            return OP_INDEX.get(a.request().getClass()); // the write it carries
        }
        return OP_INDEX.get(r.getClass());
    }

    @Override
    public int op(Message.Request r) {
        return opIndex(r);
    }

    /** A request of operation {@code op} was answered after {@code nanos} (event loop). */
    @Override
    public void replied(int op, long nanos) {
        requestLatency[op].observe(nanos / 1e9);
    }

    /** Client requests read and not yet answered. */
    long outstanding() {
        return outstanding.getAsLong();
    }

    /** One fsync (log writer thread). */
    public void fsynced(long nanos, int records) {
        fsync.observe(nanos / 1e9);
        batchSize.observe(records);
    }

    public void snapshotWritten(long nanos) {
        snapshot.observe(nanos / 1e9);
    }

    public void committed(long nanos) {
        commit.observe(nanos / 1e9);
    }

    // ---- scrape (admin thread) ----

    /** The metrics in Prometheus's text format, the gauges read from {@code now}. */
    synchronized byte[] scrape(ServerState now) {
        state = now;
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
            writer.write(out, registry.scrape());
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            state = null;
        }
    }

    /** The content type of {@link #scrape}. */
    String contentType() {
        return writer.getContentType();
    }
}
