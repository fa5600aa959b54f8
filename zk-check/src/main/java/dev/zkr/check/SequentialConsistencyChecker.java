package dev.zkr.check;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks plain reads against the committed log: each read returns its path's state at the read's reply zxid
 * (a zxid the log reached), and each session's reply zxids never decrease, so a read is never older than an
 * earlier reply of its session, its own writes included. Together: sequential consistency, as ZooKeeper promises
 * for reads without {@code sync}.
 */
public final class SequentialConsistencyChecker {

    private SequentialConsistencyChecker() {
    }

    /**
     * @param committedLog the final committed log from the empty tree (every path starts absent), in zxid order
     * @param replies      each session's successful replies in arrival order
     */
    public static Findings check(List<LogEntry> committedLog, List<SessionReply> replies) {
        CommittedLog log = new CommittedLog(committedLog);
        List<String> violations = new ArrayList<>();
        Map<Long, SessionReply> previous = new HashMap<>();
        for (SessionReply reply : replies) {
            SessionReply before = previous.put(reply.session(), reply);
            if (before != null && reply.zxid() < before.zxid()) {
                violations.add(reply + " goes back in time: an earlier reply " + before + " is newer");
            }
            if (reply.kind() != SessionReply.Kind.READ) {
                continue;
            }
            if (reply.zxid() > log.lastZxid()) {
                violations.add(reply + " was served at a zxid the committed log never reached (last "
                        + log.lastZxid() + ")");
                continue;
            }
            Znode expected = log.stateAt(reply.path(), reply.zxid());
            if (!expected.equals(reply.node())) {
                violations.add(reply + " but the committed log has " + expected + " at that zxid");
            }
        }
        return new Findings(violations);
    }
}
