package dev.zkr.testkit.soak;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the soak's clients were told (pure bookkeeping, no I/O): every acknowledged node (path and the unique token
 * it holds), every write that ended indeterminate (connection loss: it may or may not have happened), every
 * acknowledged counter increment (counter, the version it produced, its token). {@link #check} compares one
 * server's view of the tree against it. Thread-safe: writers record from their own threads.
 */
final class SoakLedger {

    /** A counter as one server holds it: its version and its data ({@code "<value> <token>"}). */
    record Counter(int version, String data) {
    }

    /** One server's view of the soak tree: node path -> data, counter path -> counter. */
    record View(Map<String, String> nodes, Map<String, Counter> counters) {
    }

    /** A counter's acknowledged versions (a bit each: a 30-minute soak acknowledges millions) and the highest. */
    private static final class CounterAcks {
        final BitSet versions = new BitSet();
        int highest;
        String highestToken;
    }

    /** The outcome of checking one view: lost acknowledged writes, and every other violation, in words. */
    record Verdict(int lost, List<String> violations) {
        boolean clean() {
            return lost == 0 && violations.isEmpty();
        }
    }

    private final Map<String, String> ackedNodes = new HashMap<>();        // path -> token
    private final Map<String, CounterAcks> ackedCounters = new TreeMap<>();
    private final List<String> clientSide = new ArrayList<>();              // violations seen by the clients
    private long acked;
    private long indeterminate;

    /** A create was acknowledged: {@code path} holds {@code token}. Two acknowledgements of one path is an error. */
    synchronized void ackedNode(String path, String token) {
        acked++;
        String before = ackedNodes.putIfAbsent(path, token);
        if (before != null) {
            clientSide.add("path " + path + " acknowledged twice (tokens " + before + " and " + token
                    + "): a sequence number handed out twice");
        }
    }

    /** A conditional setData was acknowledged: {@code counter} went to {@code version} with {@code token}. */
    synchronized void ackedCounter(String counter, int version, String token) {
        acked++;
        CounterAcks acks = ackedCounters.computeIfAbsent(counter, c -> new CounterAcks());
        if (acks.versions.get(version)) {
            clientSide.add("counter " + counter + " version " + version + " acknowledged twice (the second time to "
                    + token + "): an acknowledged increment was lost");
            return;
        }
        acks.versions.set(version);
        if (acks.highestToken == null || version > acks.highest) {
            acks.highest = version;
            acks.highestToken = token;
        }
    }

    /** A write ended with connection loss (or another uncertain error) and was not resolved by reading back. */
    synchronized void recordIndeterminate() {
        indeterminate++;
    }

    /** A client saw something impossible (e.g. a node read back with another writer's token). */
    synchronized void clientViolation(String what) {
        clientSide.add(what);
    }

    synchronized long acked() {
        return acked;
    }

    synchronized long indeterminate() {
        return indeterminate;
    }

    /** Number of acknowledged nodes (for tests). */
    synchronized int ackedNodeCount() {
        return ackedNodes.size();
    }

    /** Some acknowledged node path (for the test that deletes one behind the soak's back), or null. */
    synchronized String anyAckedNode() {
        return ackedNodes.keySet().stream().sorted().findFirst().orElse(null);
    }

    /**
     * Checks one server's view: every acknowledged node is there with its token; no token appears at two paths
     * (a retried create happened twice); every counter holds value = version, is at or past its highest
     * acknowledged version, and holds the acknowledged token at exactly that version.
     */
    synchronized Verdict check(String server, View view) {
        int lost = 0;
        List<String> violations = new ArrayList<>(clientSide);
        for (Map.Entry<String, String> e : ackedNodes.entrySet()) {
            String data = view.nodes().get(e.getKey());
            if (data == null) {
                lost++;
                violations.add(server + ": acknowledged node " + e.getKey() + " (" + e.getValue() + ") is missing");
            } else if (!data.equals(e.getValue())) {
                lost++;
                violations.add(server + ": acknowledged node " + e.getKey() + " holds " + data + ", not "
                        + e.getValue());
            }
        }
        Map<String, String> pathOfToken = new HashMap<>();
        for (Map.Entry<String, String> e : view.nodes().entrySet()) {
            String other = pathOfToken.putIfAbsent(e.getValue(), e.getKey());
            if (other != null) {
                violations.add(server + ": token " + e.getValue() + " appears twice, at " + other + " and "
                        + e.getKey());
            }
        }
        for (Map.Entry<String, CounterAcks> e : ackedCounters.entrySet()) {
            Counter c = view.counters().get(e.getKey());
            CounterAcks acks = e.getValue();
            if (c == null) {
                lost += acks.versions.cardinality();
                violations.add(server + ": counter " + e.getKey() + " is missing");
                continue;
            }
            String value = c.data().split(" ", 2)[0];
            if (!value.equals(Integer.toString(c.version()))) {
                violations.add(server + ": counter " + e.getKey() + " holds " + c.data() + " at version "
                        + c.version() + " (an increment was lost or applied twice)");
            }
            if (c.version() < acks.highest) {
                lost += acks.versions.get(c.version() + 1, acks.highest + 1).cardinality();
                violations.add(server + ": counter " + e.getKey() + " is at version " + c.version()
                        + ", below the acknowledged version " + acks.highest);
            } else if (c.version() == acks.highest && !c.data().endsWith(" " + acks.highestToken)) {
                lost++;
                violations.add(server + ": counter " + e.getKey() + " version " + c.version() + " holds "
                        + c.data() + ", acknowledged with " + acks.highestToken);
            }
        }
        return new Verdict(lost, violations);
    }
}
