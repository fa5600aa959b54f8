package dev.zkr.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An ensemble of one system: {@code size} servers on loopback, each in its own JVM with its own data dir and ports,
 * whose role lines are read from their output as it is written. Knows which member leads (ZooKeeper: {@code srvr};
 * zkr: its role lines), and kills, restarts, stops ({@code SIGSTOP}) and resumes members.
 */
public final class Ensemble implements AutoCloseable {

    /** One member's id (1-based, as in {@code server.N}) and ports; zkr has no election port. */
    public record Member(int id, int clientPort, int peerPort, int electionPort) {
    }

    private final ServerFlavor flavor;
    private final String label;
    private final List<Member> members;
    private final List<List<Member>> views;
    private final Path[] dataDirs;
    private final RoleLog[] roles;
    private final ServerProcess[] servers;
    private final long[] startedNanos;
    /** Members taken out of the ensemble for good ({@link #retire}): never restarted, never waited for. */
    private final boolean[] retired;
    private final Path logDir;

    private Ensemble(ServerFlavor flavor, String label, List<Member> members, List<List<Member>> views,
                     Path dataRoot, Path logDir) {
        this.flavor = flavor;
        this.label = label;
        this.members = List.copyOf(members);
        this.views = List.copyOf(views);
        this.logDir = logDir;
        int n = members.size();
        this.dataDirs = new Path[n];
        this.roles = new RoleLog[n];
        this.servers = new ServerProcess[n];
        this.startedNanos = new long[n];
        this.retired = new boolean[n];
        for (int i = 0; i < n; i++) {
            dataDirs[i] = dataRoot.resolve(label + "-" + members.get(i).id());
            roles[i] = new RoleLog(flavor::roleLine);
        }
    }

    /** Starts {@code size} members on fresh ports and empty data dirs under {@code dataRoot}, without waiting. */
    public static Ensemble start(ServerFlavor flavor, int size, Path dataRoot, Path logDir, String label) {
        List<Member> members = freshMembers(size);
        List<List<Member>> views = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            views.add(members);
        }
        return start(flavor, members, views, dataRoot, logDir, label);
    }

    /** {@code size} members with ids 1..size on currently free loopback ports. */
    public static List<Member> freshMembers(int size) {
        List<Member> members = new ArrayList<>();
        for (int id = 1; id <= size; id++) {
            members.add(new Member(id, ServerProcess.freePort(), ServerProcess.freePort(), ServerProcess.freePort()));
        }
        return members;
    }

    /**
     * Starts {@code members} without waiting, member {@code i} configured with {@code views.get(i)}: the member list
     * as it sees it (its own entry must be its real one; another member's peer and election ports may be those of a
     * proxy in front of that member, so that a runner can cut links between servers).
     */
    public static Ensemble start(ServerFlavor flavor, List<Member> members, List<List<Member>> views, Path dataRoot,
                                 Path logDir, String label) {
        return start(flavor, members, views, dataRoot, logDir, label, members.size());
    }

    /**
     * As {@link #start(ServerFlavor, List, List, Path, Path, String)}, but only the first {@code running} members
     * are started now; the others are spares, started later (on empty data dirs) by {@link #startSpare}. The
     * flavor decides what a spare is in the others' configuration (a static observer, for zk-chaos).
     */
    public static Ensemble start(ServerFlavor flavor, List<Member> members, List<List<Member>> views, Path dataRoot,
                                 Path logDir, String label, int running) {
        Ensemble e = new Ensemble(flavor, label, members, views, dataRoot, logDir);
        try {
            for (int i = 0; i < running; i++) {
                e.launch(i);
            }
        } catch (RuntimeException failed) {
            e.close();
            throw failed;
        }
        return e;
    }

    private void launch(int i) {
        startedNanos[i] = System.nanoTime();
        servers[i] = flavor.startMember(members.get(i), views.get(i), dataDirs[i], logDir,
                label + "-" + members.get(i).id(), roles[i]);
    }

    /** Starts spare {@code i} (never started before) on its empty data dir, without waiting. */
    public void startSpare(int i) {
        if (servers[i] != null || retired[i]) {
            throw new IllegalStateException("server " + id(i) + " is no spare: it was started before");
        }
        launch(i);
    }

    /** Whether member {@code i} was started (spares are not, until {@link #startSpare}). */
    public boolean started(int i) {
        return servers[i] != null;
    }

    /** kill -9 of member {@code i} if it runs, and from now on it is no member: not restarted, not waited for. */
    public void retire(int i) {
        retired[i] = true;
        if (servers[i] != null) {
            servers[i].kill();
        }
    }

    public boolean retired(int i) {
        return retired[i];
    }

    /** The members started and not retired, by index. */
    public List<Integer> active() {
        List<Integer> active = new ArrayList<>();
        for (int i = 0; i < size(); i++) {
            if (servers[i] != null && !retired[i]) {
                active.add(i);
            }
        }
        return active;
    }

    public ServerFlavor flavor() {
        return flavor;
    }

    public String label() {
        return label;
    }

    public int size() {
        return members.size();
    }

    /** The members with their real ports. */
    public List<Member> members() {
        return members;
    }

    /**
     * The index of the member that leads now if exactly one running member claims to lead (zkr: its newest role
     * line since its start, so a paused zkr leader still counts; ZooKeeper: {@code srvr}, 2 s at most per member), else -1.
     */
    public int currentLeader() {
        int leader = -1;
        for (int i : active()) {
            if (!servers[i].alive()) {
                continue;
            }
            Optional<RoleLine> r = flavor.currentRole(servers[i], roles[i], startedNanos[i]);
            if (r.isPresent() && r.get().kind().leads()) {
                if (leader >= 0) {
                    return -1;
                }
                leader = i;
            }
        }
        return leader;
    }

    /** The {@code server.N} id of member {@code i} (0-based index). */
    public int id(int i) {
        return members.get(i).id();
    }

    public ServerProcess server(int i) {
        return servers[i];
    }

    RoleLog roles(int i) {
        return roles[i];
    }

    public Path dataDir(int i) {
        return dataDirs[i];
    }

    /** Only member {@code i}. */
    public String connectString(int i) {
        return "127.0.0.1:" + members.get(i).clientPort();
    }

    /** Every member, as a client of the ensemble would list them. */
    public String connectString() {
        return String.join(",", members.stream().map(m -> "127.0.0.1:" + m.clientPort()).toList());
    }

    /** kill -9 of member {@code i} (returns once the signal is sent and the JVM is gone). */
    public void kill(int i) {
        servers[i].kill();
    }

    /** Starts member {@code i} again on the same data dir and ports (after {@link #kill}). */
    public void restart(int i) {
        if (retired[i]) {
            throw new IllegalStateException("server " + id(i) + " was retired");
        }
        startedNanos[i] = System.nanoTime();
        servers[i] = servers[i].restart();
    }

    /** SIGSTOP of member {@code i}: it keeps its sockets open and answers nothing. */
    public void pause(int i) {
        servers[i].signal("STOP");
    }

    /** SIGCONT of member {@code i}. */
    public void resume(int i) {
        servers[i].signal("CONT");
    }

    /**
     * Waits until every member runs, exactly one leads and all others follow it (zkr: same leader id and epoch in
     * their role lines; ZooKeeper: {@code srvr} modes), and a new client session on each member can read; returns
     * the leader's index. Fails with the members' roles at the deadline, or at once if a member's JVM exited.
     */
    public int awaitFull(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<Integer> active = active();
            for (int i : active) {
                servers[i].checkAlive();
            }
            List<Optional<RoleLine>> now = new ArrayList<>();
            List<Member> activeMembers = new ArrayList<>();
            for (int i : active) {
                now.add(flavor.currentRole(servers[i], roles[i], startedNanos[i]));
                activeMembers.add(members.get(i));
            }
            int leader = leaderOfFull(now, activeMembers);
            if (leader >= 0 && allServe(active)) {
                return active.get(leader);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(flavor.name() + " ensemble not complete (one leader, "
                        + (active.size() - 1) + " followers, all serving) within " + timeout + ": "
                        + describe(active, now));
            }
            ServerProcess.pause(20);
        }
    }

    private boolean allServe(List<Integer> active) {
        for (int i : active) {
            try (KvClient c = flavor.connect(connectString(i), Duration.ofSeconds(5))) {
                c.childCount("/");
            } catch (RuntimeException notYet) {
                return false;
            }
        }
        return true;
    }

    /**
     * The index of the leader if exactly one member leads and every other follows it (where role lines name the
     * leader and epoch, they must agree); else -1. Pure.
     */
    static int leaderOfFull(List<Optional<RoleLine>> roles, List<Member> members) {
        int leader = -1;
        for (int i = 0; i < roles.size(); i++) {
            Optional<RoleLine> r = roles.get(i);
            if (r.isEmpty()) {
                return -1;
            }
            if (r.get().kind().leads()) {
                if (leader >= 0) {
                    return -1;
                }
                leader = i;
            } else if (!r.get().kind().follows()) {
                return -1;
            }
        }
        if (leader < 0) {
            return -1;
        }
        RoleLine l = roles.get(leader).get();
        for (int i = 0; i < roles.size(); i++) {
            RoleLine r = roles.get(i).get();
            if (i == leader) {
                continue;
            }
            if (r.leaderId() >= 0 && r.leaderId() != members.get(leader).id()) {
                return -1;
            }
            if (r.epoch() >= 0 && l.epoch() >= 0 && r.epoch() != l.epoch()) {
                return -1;
            }
        }
        return leader;
    }

    private String describe(List<Integer> active, List<Optional<RoleLine>> now) {
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < active.size(); k++) {
            int i = active.get(k);
            sb.append(k == 0 ? "" : "; ").append("server ").append(id(i)).append(' ');
            Optional<RoleLine> r = now.get(k);
            if (!servers[i].alive()) {
                sb.append("exited");
            } else if (r.isEmpty()) {
                sb.append("no role yet (").append(roles[i].lines()).append(" lines of output read")
                        .append(roles[i].lines() == 0 ? ": is an slf4j binding printing INFO on its class path?"
                                : ", the last: '" + roles[i].lastLine() + "'")
                        .append(')');
            } else {
                sb.append(r.get().kind());
                if (r.get().leaderId() >= 0 || r.get().epoch() >= 0) {
                    sb.append(" (leader ").append(r.get().leaderId()).append(", epoch ").append(r.get().epoch())
                            .append(')');
                }
            }
        }
        return sb.append("; logs in ").append(logDir).toString();
    }

    /** kill -9 of every member still running. */
    @Override
    public void close() {
        for (ServerProcess s : servers) {
            if (s != null) {
                s.kill();
            }
        }
    }
}
