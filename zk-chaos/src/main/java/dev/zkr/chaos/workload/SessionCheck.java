package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.Op;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The sessions checks, pure. Ephemerals: given each session's fate after healing and what every server holds under
 * its directory, a session {@link Fate#ALIVE alive} keeps every acknowledged ephemeral on every server, one
 * {@link Fate#EXPIRED expired} or {@link Fate#CLOSED closed} has none left on any server, no server holds a node
 * whose create definitely failed or that no create made, and all servers agree. Zxids: per session, in its order,
 * the {@code mzxid} of the hot node it reads never decreases, the {@code czxid}s of its creates increase, and the
 * {@code pzxid} of its own directory never decreases and is at least the {@code czxid} of every create acknowledged
 * before the read (read your writes).
 */
final class SessionCheck {

    /** What became of a session, as its client learned after healing (see the module README for the rule). */
    enum Fate {
        /** Its client served a request on it after healing (and was never told LOST). */
        ALIVE,
        /** Its client was told LOST (expired), during the run or when it tried after healing. */
        EXPIRED,
        /** Closed on purpose by its worker. */
        CLOSED,
        /** Its client could not tell within the deadline: not checked. */
        UNDECIDED
    }

    /** One session: its id (hex, also its directory's name), fate, and its ephemerals' names by outcome. */
    record Session(String hex, Fate fate, Set<String> acknowledged, Set<String> failed, Set<String> attempted) {
    }

    private SessionCheck() {
    }

    /**
     * {@code servers}: per server id, per session hex, the child names of its directory (absent: no directory).
     */
    static List<String> ephemerals(List<Session> sessions, Map<Integer, Map<String, Set<String>>> servers) {
        List<String> anomalies = new ArrayList<>();
        for (Session s : sessions) {
            Set<String> first = null;
            for (Map.Entry<Integer, Map<String, Set<String>>> e : servers.entrySet()) {
                Set<String> present = new TreeSet<>(e.getValue().getOrDefault(s.hex(), Set.of()));
                String on = " on server " + e.getKey();
                String who = "session 0x" + s.hex() + " (" + s.fate().name().toLowerCase() + ")";
                switch (s.fate()) {
                    case ALIVE -> {
                        Set<String> missing = new TreeSet<>(s.acknowledged());
                        missing.removeAll(present);
                        if (!missing.isEmpty()) {
                            anomalies.add(who + " lost acknowledged ephemerals" + on + ": " + missing);
                        }
                    }
                    case EXPIRED, CLOSED -> {
                        if (!present.isEmpty()) {
                            anomalies.add(who + " still has ephemerals" + on + ": " + present);
                        }
                    }
                    case UNDECIDED -> {
                        // its fate is unknown: presence is not checked
                    }
                }
                for (String name : present) {
                    if (s.failed().contains(name)) {
                        anomalies.add(who + ": ephemeral " + name + on + " although its create failed");
                    } else if (!s.attempted().contains(name)) {
                        anomalies.add(who + ": ephemeral " + name + on + " that no create made");
                    }
                }
                if (first == null) {
                    first = present;
                } else if (!first.equals(present) && s.fate() != Fate.UNDECIDED) {
                    anomalies.add(who + ": servers disagree on its ephemerals" + on + ": " + present + " vs " + first);
                }
            }
        }
        return anomalies;
    }

    /** Checks the zxids each session saw; {@code ops} in invocation order. Returns the anomalies. */
    static List<String> zxids(List<Op> ops) {
        List<String> anomalies = new ArrayList<>();
        Map<String, Long> hot = new HashMap<>();
        Map<String, Long> dir = new HashMap<>();
        Map<String, Long> created = new HashMap<>();
        Map<String, Op> last = new HashMap<>();
        for (Op op : ops) {
            if (!op.ok() || op.result() == null) {
                continue;
            }
            Map<String, Long> series;
            switch (op.f()) {
                case "read-hot" -> series = hot;
                case "read-dir" -> series = dir;
                case "create-eph" -> series = created;
                default -> {
                    continue;
                }
            }
            String session = op.arg();
            long zxid = Long.parseUnsignedLong(op.result(), 16);
            Long before = series.get(session);
            boolean strict = series == created;
            if (before != null && (zxid < before || (strict && zxid == before))) {
                anomalies.add("session 0x" + session + " saw " + op.f() + " zxid go back from 0x"
                        + Long.toHexString(before) + " to 0x" + op.result() + ": " + op);
            }
            if (series == dir) {
                Long mine = created.get(session);
                if (mine != null && zxid < mine) {
                    anomalies.add("session 0x" + session + " read its directory at pzxid 0x" + op.result()
                            + " after its create at czxid 0x" + Long.toHexString(mine) + " was acknowledged: "
                            + last.get(session) + " then " + op);
                }
            }
            if (before == null || zxid > before) {
                series.put(session, zxid);
            }
            if (series == created) {
                last.put(session, op);
            }
        }
        return anomalies;
    }
}
