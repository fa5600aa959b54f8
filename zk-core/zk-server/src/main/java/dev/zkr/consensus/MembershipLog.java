package dev.zkr.consensus;

import java.util.Map;
import java.util.TreeMap;

/**
 * A replica's membership history (docs/membership.md): the membership in force at its log's base (from the snapshot,
 * or the static members) and every membership record after the base. The current membership is the last record's,
 * committed or not (Raft's rule: a server uses a configuration as soon as it is in its log); truncating the log undoes
 * an uncommitted change; installing a snapshot replaces the history up to it.
 */
final class MembershipLog {
    private Membership base;
    private final TreeMap<Long, Membership> records = new TreeMap<>();

    MembershipLog(Membership base) {
        this.base = base;
    }

    Membership current() {
        return records.isEmpty() ? base : records.lastEntry().getValue();
    }

    /** The membership in force at {@code zxid}: the last record at or before it, else the base's. */
    Membership at(long zxid) {
        Map.Entry<Long, Membership> e = records.floorEntry(zxid);
        return e == null ? base : e.getValue();
    }

    /** The zxid of the last membership record, {@link Zxid#NONE} if none after the base. */
    long lastChange() {
        return records.isEmpty() ? Zxid.NONE : records.lastKey();
    }

    /** The membership before the last record (the one a pending change replaces). */
    Membership previous() {
        if (records.isEmpty()) {
            return base;
        }
        Map.Entry<Long, Membership> e = records.lowerEntry(records.lastKey());
        return e == null ? base : e.getValue();
    }

    void appended(long zxid, Membership m) {
        records.put(zxid, m);
    }

    /** Drops the records after {@code zxid}; returns whether the current membership changed. */
    boolean truncatedAfter(long zxid) {
        Membership before = current();
        records.tailMap(zxid, false).clear();
        return !before.equals(current());
    }

    /** A snapshot at {@code zxid} carrying {@code atSnapshot} replaces the history up to it. */
    boolean installed(long zxid, Membership atSnapshot) {
        Membership before = current();
        records.headMap(zxid, true).clear();
        base = atSnapshot;
        return !before.equals(current());
    }

    @Override
    public String toString() {
        return "base " + base + " records " + records;
    }
}
