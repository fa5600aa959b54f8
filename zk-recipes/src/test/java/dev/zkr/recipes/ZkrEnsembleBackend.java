package dev.zkr.recipes;

import dev.zkr.consensus.Role;
import dev.zkr.client.ZkClient;
import dev.zkr.server.ZkServer;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The zkr backend of the recipe suites on a 3-server {@link TestEnsemble} (its default election timeout, 1 s):
 * clients get every server in their connect string (shuffled by the client, so they spread over leader and
 * followers); {@link #restartServer()}, {@link #stopServer()} and {@link #startServer()} act on every server at
 * once (the whole ensemble goes down, clients are SUSPENDED, sessions stay); the {@link EnsembleBackend} faults
 * strike one server. Sessions of 10 s (the suites' default) are well above 4 election timeouts, so a failover
 * expires nobody.
 */
public final class ZkrEnsembleBackend implements EnsembleBackend {

    private static final int SERVERS = 3;
    private static final Duration IN_STEP = Duration.ofSeconds(20);

    private final TestEnsemble ensemble;
    /** The indexes of the ensemble's members (0, 1, 2; other ones once it changed shape: {@link #startReshaped}). */
    private final List<Integer> members;
    private final boolean shared;
    private final ClientMaker clients;
    private int down = -1;
    private boolean partitioned;

    private ZkrEnsembleBackend(TestEnsemble ensemble, boolean shared, ClientMaker clients) {
        this.ensemble = ensemble;
        this.members = ensemble.voters();
        this.shared = shared;
        this.clients = clients;
    }

    static ZkrEnsembleBackend start() {
        return start(false, null);
    }

    /** A 3-server backend whose clients {@code clients} makes over the whole connect string. */
    public static ZkrEnsembleBackend start(ClientMaker clients) {
        return start(false, clients);
    }

    /**
     * An ensemble that several users take turns on (the properties of a class: starting and electing costs seconds):
     * {@link #close()} only ends the fault in force; {@link #shutdown()} stops it.
     */
    static ZkrEnsembleBackend startShared() {
        return start(true, null);
    }

    /** {@link #startShared()} with clients that {@code clients} makes. */
    public static ZkrEnsembleBackend startShared(ClientMaker clients) {
        return start(true, clients);
    }

    /**
     * A 3-server backend whose ensemble changed shape before the suite starts (docs/membership.md): a fourth server
     * joined and became a voter, then the leader was removed, so the suite runs on members 1, 2 (or the two that
     * remain) and a server that joined live, with a leader elected after a membership change.
     */
    static ZkrEnsembleBackend startReshaped() {
        TestEnsemble e = TestEnsemble.builder().servers(SERVERS).start();
        e.addServer();
        e.removeServer(e.leader());
        ZkrEnsembleBackend b = new ZkrEnsembleBackend(e, false, null);
        b.awaitInStep();
        return b;
    }

    private static ZkrEnsembleBackend start(boolean shared, ClientMaker clients) {
        ZkrEnsembleBackend b = new ZkrEnsembleBackend(TestEnsemble.builder().servers(SERVERS).start(), shared,
                clients);
        b.awaitInStep();
        return b;
    }

    @Override
    public ZkClient newClient(Duration sessionTimeout) {
        return clients == null ? ensemble.newClient(sessionTimeout)
                : clients.connect(ensemble.connectString(), sessionTimeout);
    }

    /** Expires the session through the leader (the server that decides session txns). */
    @Override
    public synchronized void expireSession(ZkClient client) {
        long id = client.sessionId();
        ZkServer leader = ensemble.server(ensemble.leader());
        if (!leader.expireSession(id)) {
            throw new IllegalArgumentException("the leader does not know session 0x" + Long.toHexString(id));
        }
    }

    /** Every running member that believes it leads is asked (a deposed one still believing it refuses a repeat). */
    @Override
    public synchronized void expireAgain(long sessionId) {
        for (int i : members) {
            ZkServer s = ensemble.isRunning(i) ? ensemble.server(i) : null;
            if (s != null && s.isLeading() && s.expireSession(sessionId)) {
                System.out.println("session 0x" + Long.toHexString(sessionId) + " expired again by server "
                        + s.serverId() + ": the first expiry was lost with its leader");
            }
        }
    }

    @Override
    public synchronized void restartServer() {
        stopServer();
        startServer();
    }

    @Override
    public synchronized void stopServer() {
        ensemble.heal();
        partitioned = false;
        for (int i : members) {
            if (ensemble.isRunning(i)) {
                ensemble.kill(i);
            }
        }
        down = -1;
    }

    @Override
    public synchronized void startServer() {
        for (int i : members) {
            if (!ensemble.isRunning(i)) {
                ensemble.restart(i);
            }
        }
        awaitInStep();
    }

    @Override
    public synchronized int killLeader() {
        recover();
        down = ensemble.leader();
        ensemble.kill(down);
        return down;
    }

    @Override
    public synchronized int killFollower(int which) {
        recover();
        down = follower(which);
        ensemble.kill(down);
        return down;
    }

    @Override
    public synchronized int isolateLeader() {
        recover();
        int i = ensemble.leader();
        ensemble.isolate(i);
        partitioned = true;
        return i;
    }

    @Override
    public synchronized int isolateFollower(int which) {
        recover();
        int i = follower(which);
        ensemble.isolate(i);
        partitioned = true;
        return i;
    }

    @Override
    public synchronized void recover() {
        if (down < 0 && !partitioned) {
            return;
        }
        if (down >= 0) {
            ensemble.restart(down);
            down = -1;
        }
        if (partitioned) {
            ensemble.heal();
            partitioned = false;
        }
        awaitInStep();
    }

    /** The {@code which}-th follower (modulo their number) of the current leader. */
    private int follower(int which) {
        int leader = ensemble.leader();
        List<Integer> followers = new ArrayList<>();
        for (int i : members) {
            if (i != leader) {
                followers.add(i);
            }
        }
        return followers.get(Math.floorMod(which, followers.size()));
    }

    /** Waits until one server leads in service and every server names it as leader (polling with a deadline). */
    private void awaitInStep() {
        long deadline = System.nanoTime() + IN_STEP.toNanos();
        while (true) {
            int leader = ensemble.leader();
            int id = ensemble.server(leader).serverId();
            boolean inStep = true;
            for (int i : members) {
                inStep = inStep && ensemble.isRunning(i) && ensemble.server(i).leaderId() == id
                        && (i == leader || ensemble.server(i).role() == Role.FOLLOWER);
            }
            if (inStep) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the ensemble is not in step after " + IN_STEP.toSeconds()
                        + " s: " + ensemble.roles());
            }
            LockSupport.parkNanos(5_000_000); // polling the servers' roles
        }
    }

    @Override
    public synchronized void close() {
        if (shared) {
            recover();
        } else {
            ensemble.close();
        }
    }

    /** Stops everything, shared or not. */
    public synchronized void shutdown() {
        ensemble.close();
    }
}
