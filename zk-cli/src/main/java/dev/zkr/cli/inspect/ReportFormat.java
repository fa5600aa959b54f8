package dev.zkr.cli.inspect;

import dev.zkr.cli.DataFormat;
import dev.zkr.cli.Formats;
import dev.zkr.cli.inspect.BarrierLayout.BarrierReport;
import dev.zkr.cli.inspect.CounterLayout.CounterReport;
import dev.zkr.cli.inspect.ElectionLayout.LeaderReport;
import dev.zkr.cli.inspect.ElectionLayout.Participant;
import dev.zkr.cli.inspect.GroupLayout.GroupMember;
import dev.zkr.cli.inspect.LockLayout.LockNode;
import dev.zkr.cli.inspect.LockLayout.LockReport;
import dev.zkr.cli.inspect.QueueLayout.Item;
import dev.zkr.cli.inspect.QueueLayout.QueueReport;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The text and JSON forms of the inspection reports. Times are shown as ISO-8601 UTC and as an age at {@code now}
 * (the local clock; node times are the server's). Sessions are hex strings in both forms (a session id can exceed
 * the 2^53 that JSON readers hold exactly). Pure.
 */
final class ReportFormat {

    private final long now;
    private final DataFormat format;

    ReportFormat(long now, DataFormat format) {
        this.now = now;
        this.format = format;
    }

    /** The moment ages are measured from (epoch millis, local clock). */
    long now() {
        return now;
    }

    private String since(long t) {
        return Formats.time(t) + " (" + Formats.age(now - t) + ")";
    }

    // ---- locks ------------------------------------------------------------------------------------------------

    List<String> lockText(String path, LockReport r) {
        List<String> lines = new ArrayList<>();
        if (r.isEmpty()) {
            lines.add("lock " + path + ": free (no lock nodes)");
            return lines;
        }
        lines.add("lock " + path + " (" + r.kind() + "): held by " + r.holders().size() + ", "
                + r.waiters().size() + " waiting");
        for (LockNode n : r.holders()) {
            lines.add("  holder    " + lockLine(n, true));
        }
        int i = 1;
        for (LockNode n : r.waiters()) {
            lines.add(String.format("  waiter %-2d %s", i++, lockLine(n, false)));
        }
        return lines;
    }

    private String lockLine(LockNode n, boolean holder) {
        return String.format("%-5s session %s%s since %s  node %s%s", n.side(), Formats.hex(n.session()),
                holder ? "  fencing token " + n.fencingToken() : "", since(n.since()), n.name(),
                n.revokeRequested() ? "  [revocation requested]" : "");
    }

    Map<String, Object> lockJson(String path, LockReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", path);
        m.put("kind", r.kind());
        m.put("holders", r.holders().stream().map(n -> lockNodeJson(n, true)).toList());
        m.put("waiters", r.waiters().stream().map(n -> lockNodeJson(n, false)).toList());
        return m;
    }

    private Map<String, Object> lockNodeJson(LockNode n, boolean holder) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("node", n.name());
        m.put("side", n.side());
        m.put("sequence", n.sequence());
        m.put("session", Formats.hex(n.session()));
        if (holder) {
            m.put("fencingToken", n.fencingToken());
        }
        m.put("since", n.since());
        m.put("revokeRequested", n.revokeRequested());
        return m;
    }

    // ---- leader -----------------------------------------------------------------------------------------------

    List<String> leaderText(String path, LeaderReport r) {
        List<String> lines = new ArrayList<>();
        if ("none".equals(r.mode())) {
            lines.add("election " + path + ": no participants");
            return lines;
        }
        lines.add("election " + path + " (" + r.mode() + "): "
                + (r.leader() == null ? "no leader" : "leader " + r.leader().id() + ", fencing token "
                + r.fencingToken()) + ", " + r.participants().size() + " participant"
                + (r.participants().size() == 1 ? "" : "s"));
        int follower = 1;
        for (Participant p : r.participants()) {
            String role = p == r.leader() ? "leader" : "follower " + follower++;
            lines.add(String.format("  %-11s %-12s session %s  since %s  node %s", role, p.id(),
                    Formats.hex(p.session()), since(p.since()), p.node()));
        }
        return lines;
    }

    Map<String, Object> leaderJson(String path, LeaderReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", path);
        m.put("mode", r.mode());
        m.put("leader", r.leader() == null ? null : r.leader().id());
        m.put("fencingToken", r.leader() == null ? null : r.fencingToken());
        m.put("participants", r.participants().stream().map(p -> {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("id", p.id());
            pm.put("leader", p == r.leader());
            pm.put("session", Formats.hex(p.session()));
            pm.put("since", p.since());
            pm.put("node", p.node());
            return (Object) pm;
        }).toList());
        return m;
    }

    // ---- barrier ----------------------------------------------------------------------------------------------

    List<String> barrierText(String path, BarrierReport r) {
        List<String> lines = new ArrayList<>();
        if (r.kind().equals("simple")) {
            lines.add("simple barrier " + path + ": up" + (r.owner() == 0 ? " (persistent)"
                    : " (ephemeral, falls when session " + Formats.hex(r.owner()) + " ends)"));
            return lines;
        }
        String parties = r.parties() == null ? "?" : String.valueOf(r.parties());
        String head = switch (r.state()) {
            case "entering" -> "entering, " + r.present().size() + " of " + parties + " entered"
                    + (r.missing() == null ? "" : ", waiting for " + r.missing());
            case "open" -> "open since " + since(r.openSince()) + ", " + r.present().size() + " of " + parties
                    + " still in" + (r.parties() == null ? " (parties unknown: --parties N counts who left)"
                    : ", none left");
            case "leaving" -> "leaving, " + r.left() + " of " + parties + " left, " + r.present().size()
                    + " still in (open since " + since(r.openSince()) + ")";
            default -> "empty";
        };
        lines.add("double barrier " + path + ": " + head);
        for (BarrierLayout.Member m : r.present()) {
            lines.add(String.format("  in  %-12s session %s  entered %s%s", m.id(), Formats.hex(m.session()),
                    since(m.since()), m.markedLowest() ? "  (lowest: leaves last)" : ""));
        }
        return lines;
    }

    Map<String, Object> barrierJson(String path, BarrierReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", path);
        m.put("kind", r.kind());
        m.put("state", r.state());
        m.put("parties", r.parties());
        m.put("entered", r.present().stream().map(p -> {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("id", p.id());
            pm.put("session", Formats.hex(p.session()));
            pm.put("since", p.since());
            pm.put("lowest", p.markedLowest());
            return (Object) pm;
        }).toList());
        m.put("openSince", r.openSince());
        m.put("left", r.left());
        m.put("waitingFor", r.missing());
        if (r.kind().equals("simple")) {
            m.put("owner", Formats.hex(r.owner()));
        }
        return m;
    }

    // ---- group ------------------------------------------------------------------------------------------------

    List<String> groupText(String path, List<GroupMember> members) {
        List<String> lines = new ArrayList<>();
        lines.add("group " + path + ": " + members.size() + " member" + (members.size() == 1 ? "" : "s"));
        for (GroupMember m : members) {
            lines.add(String.format("  %-12s session %s  joined %s  data %s", m.id(), Formats.hex(m.session()),
                    since(m.since()), m.data().length == 0 ? "(none)" : "'" + format.encode(m.data()) + "'"));
        }
        return lines;
    }

    Map<String, Object> groupJson(String path, List<GroupMember> members) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", path);
        m.put("members", members.stream().map(g -> {
            Map<String, Object> gm = new LinkedHashMap<>();
            gm.put("id", g.id());
            gm.put("session", Formats.hex(g.session()));
            gm.put("since", g.since());
            Formats.putData(gm, g.data(), format);
            return (Object) gm;
        }).toList());
        return m;
    }

    // ---- queue ------------------------------------------------------------------------------------------------

    List<String> queueText(String path, QueueReport r) {
        List<String> lines = new ArrayList<>();
        lines.add("queue " + path + ": " + r.depth() + " item" + (r.depth() == 1 ? "" : "s") + " ("
                + r.unclaimed() + " unclaimed, " + r.claimed().size() + " claimed)"
                + (r.oldestAgeMillis() < 0 ? "" : ", oldest " + Formats.age(r.oldestAgeMillis()) + " old"));
        if (!r.claimed().isEmpty()) {
            lines.add("claimed:");
            for (Item i : r.claimed()) {
                lines.add("  " + i.name() + "  by session " + Formats.hex(i.claimedBy()) + " since "
                        + since(i.claimedSince()));
            }
        }
        if (!r.head().isEmpty()) {
            lines.add("first " + r.head().size() + ":");
            for (Item i : r.head()) {
                lines.add(String.format("  %s  %d B  offered %s%s", i.name(), i.size(), since(i.offered()),
                        i.claimed() ? "  claimed" : ""));
            }
        }
        if (!r.consumers().isEmpty()) {
            lines.add("consumers: " + r.consumers().size() + " (sessions "
                    + String.join(", ", r.consumers().stream().map(Formats::hex).toList()) + ")");
        }
        return lines;
    }

    Map<String, Object> queueJson(String path, QueueReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", path);
        m.put("depth", r.depth());
        m.put("unclaimed", r.unclaimed());
        m.put("oldestAgeMillis", r.oldestAgeMillis() < 0 ? null : r.oldestAgeMillis());
        m.put("claimed", r.claimed().stream().map(this::itemJson).toList());
        m.put("head", r.head().stream().map(this::itemJson).toList());
        m.put("consumers", r.consumers().stream().map(Formats::hex).toList());
        return m;
    }

    private Object itemJson(Item i) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("node", i.name());
        m.put("sequence", i.sequence());
        m.put("size", i.size());
        m.put("offered", i.offered());
        m.put("claimedBy", i.claimed() ? Formats.hex(i.claimedBy()) : null);
        m.put("claimedSince", i.claimed() ? i.claimedSince() : null);
        return m;
    }

    // ---- counter ----------------------------------------------------------------------------------------------

    List<String> counterText(String path, CounterReport r) {
        List<String> lines = new ArrayList<>();
        lines.add("counter " + path + ": " + r.value() + (r.initialised() ? "" : " (never written)"));
        if (r.initialised()) {
            lines.add("  base " + r.base() + ", c0 " + r.c0() + ", increments created " + r.creates()
                    + ", value version " + r.version() + ", increment nodes present " + r.pending());
        }
        lines.add("  compare-and-set gate: " + gate(r.gateHolder()));
        return lines;
    }

    private static String gate(long holder) {
        return holder == 0 ? "free" : holder == -1 ? "orphaned (its holder's session ended)"
                : "held by session " + Formats.hex(holder);
    }

    Map<String, Object> counterJson(String path, CounterReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", path);
        m.put("value", r.value());
        m.put("initialised", r.initialised());
        m.put("base", r.base());
        m.put("c0", r.c0());
        m.put("creates", r.creates());
        m.put("version", r.version());
        m.put("pending", r.pending());
        m.put("gate", r.gateHolder() == 0 ? "free" : r.gateHolder() == -1 ? "orphaned" : Formats.hex(r.gateHolder()));
        return m;
    }
}
