package dev.zkr.check;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks durability and FIFO order: every acknowledged write is in the final committed log at its zxid with the
 * content its client saw, and each session's replies arrive in the order of its requests (increasing xids).
 */
public final class DurabilityChecker {

    private DurabilityChecker() {
    }

    /**
     * @param committedLog the final committed log (from the empty tree), in zxid order
     * @param replies      each session's successful replies in arrival order
     */
    public static Findings check(List<LogEntry> committedLog, List<SessionReply> replies) {
        CommittedLog log = new CommittedLog(committedLog);
        List<String> violations = new ArrayList<>();
        Map<Long, SessionReply> previous = new HashMap<>();
        for (SessionReply reply : replies) {
            SessionReply before = previous.put(reply.session(), reply);
            if (before != null && reply.xid() <= before.xid()) {
                violations.add(reply + " arrived after " + before + ": replies out of request order");
            }
            if (reply.kind() == SessionReply.Kind.WRITE) {
                LogEntry entry = log.entry(reply.zxid(), reply.path());
                if (entry == null) {
                    violations.add("acknowledged " + reply + " is not in the committed log");
                } else if (reply.node() != null && !reply.node().equals(entry.after())) {
                    violations.add("acknowledged " + reply + " but the committed log has " + entry.op() + " ⇒ "
                            + entry.after() + " at that zxid");
                }
            }
        }
        return new Findings(violations);
    }
}
