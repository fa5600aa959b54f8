package dev.zkr.chaos.nemesis;

import dev.zkr.bench.Ensemble;
import dev.zkr.chaos.Cluster;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.admin.ZooKeeperAdmin;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * ZooKeeper's membership changes through {@link ZooKeeperAdmin#reconfigure}, in its non-incremental form: the whole
 * new membership with every server's real address (the voters as participants, the spares as observers, the
 * retired left out). A ZooKeeper run with spares has no proxies ({@link Cluster#linksBypassProxies}): ZooKeeper
 * gives every member the leader's addresses as soon as it syncs, one per server, where the proxies need one per link.
 */
final class ZooKeeperMemberAdmin implements MemberAdmin {

    private final Cluster cluster;

    ZooKeeperMemberAdmin(Cluster cluster) {
        this.cluster = cluster;
    }

    @Override
    public void promote(int i) throws Exception {
        List<Integer> voters = voters();
        voters.add(i);
        change(voters, -1, "promote server " + cluster.ensemble().id(i));
    }

    @Override
    public void remove(int i) throws Exception {
        List<Integer> voters = voters();
        voters.remove(Integer.valueOf(i));
        change(voters, i, "remove server " + cluster.ensemble().id(i));
    }

    /** The participants now. */
    private List<Integer> voters() {
        return new ArrayList<>(cluster.active().stream().filter(cluster::votes).toList());
    }

    private void change(List<Integer> voters, int leaving, String what) throws Exception {
        String config = config(voters, leaving);
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeperAdmin admin = new ZooKeeperAdmin(cluster.connectString(), 8_000, e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            connected.await(10, TimeUnit.SECONDS);
            admin.addAuthInfo("digest", ("super:" + Cluster.SUPER_PASSWORD).getBytes(StandardCharsets.UTF_8));
            MemberAdmin.untilMade(what,
                    () -> made(new String(admin.getConfig(false, null), StandardCharsets.UTF_8), voters),
                    () -> admin.reconfigure(null, null, config, -1, null), KeeperException.class);
        } finally {
            admin.close();
        }
    }

    /** Whether ZooKeeper's config text has exactly {@code voters} as participants. */
    private boolean made(String text, List<Integer> voters) {
        List<Integer> participants = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("server.") && line.contains(":participant")) {
                participants.add(Integer.parseInt(line.substring("server.".length(), line.indexOf('='))));
            }
        }
        return participants.size() == voters.size()
                && voters.stream().allMatch(i -> participants.contains(cluster.ensemble().id(i)));
    }

    /**
     * The new membership: {@code voters} as participants, every other server not retired and not {@code leaving}
     * (the spares, started or not) as observers.
     */
    private String config(List<Integer> voters, int leaving) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
            if (voters.contains(i)) {
                lines.add(line(i, "participant"));
            } else if (i != leaving && !cluster.ensemble().retired(i)) {
                lines.add(line(i, "observer"));
            }
        }
        return String.join(",", lines);
    }

    private String line(int i, String role) {
        Ensemble.Member m = cluster.ensemble().members().get(i);
        return "server." + m.id() + "=127.0.0.1:" + m.peerPort() + ":" + m.electionPort() + ":" + role
                + ";127.0.0.1:" + m.clientPort();
    }
}
