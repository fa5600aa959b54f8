package dev.zkr.check;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/** An index over the committed log: each path's state at any zxid, and the entries of a zxid. Paths start absent. */
final class CommittedLog {

    private final Map<String, NavigableMap<Long, Znode>> history = new HashMap<>();
    private final Map<Long, Map<String, LogEntry>> byZxid = new HashMap<>();
    private final long lastZxid;

    /** Indexes entries given in log order; zxids must not decrease. */
    CommittedLog(List<LogEntry> entries) {
        long last = 0;
        for (LogEntry e : entries) {
            if (e.zxid() < last) {
                throw new IllegalArgumentException("committed log out of zxid order at " + e);
            }
            last = e.zxid();
            history.computeIfAbsent(e.path(), p -> new TreeMap<>()).put(e.zxid(), e.after());
            byZxid.computeIfAbsent(e.zxid(), z -> new HashMap<>()).put(e.path(), e);
        }
        lastZxid = last;
    }

    /** The node at {@code path} once every entry up to {@code zxid} is applied. */
    Znode stateAt(String path, long zxid) {
        NavigableMap<Long, Znode> changes = history.get(path);
        Map.Entry<Long, Znode> last = changes == null ? null : changes.floorEntry(zxid);
        return last == null ? Znode.ABSENT : last.getValue();
    }

    /** The last change of {@code path} at {@code zxid}, or null. */
    LogEntry entry(long zxid, String path) {
        Map<String, LogEntry> entries = byZxid.get(zxid);
        return entries == null ? null : entries.get(path);
    }

    long lastZxid() {
        return lastZxid;
    }
}
