package dev.zkr.tree;

import dev.zkr.client.Acl;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The distinct ACLs of a tree, each stored once with a reference count (ZooKeeper's ReferenceCountedACLCache): a
 * million nodes with the same ACL share one {@link Entry}. Nodes hold their entry; snapshots write the entry's id
 * per node and the table once. Ids are local to one tree (txns carry ACL lists, never ids). Thread-safe: the apply
 * thread interns and releases; snapshot writers and readers only read entries, which are immutable.
 */
final class AclTable {

    /** One distinct ACL and its id in this table. */
    static final class Entry {
        final long id;
        final List<Acl> acls;
        /** Nodes referring to it; guarded by the table. */
        private long refs;

        Entry(long id, List<Acl> acls) {
            this.id = id;
            this.acls = acls;
        }

        @Override
        public String toString() {
            return id + "=" + acls;
        }
    }

    private final Map<List<Acl>, Entry> byAcl = new HashMap<>();
    private long nextId = 1;

    /** The entry of this ACL with one more reference (created on first use). */
    synchronized Entry intern(List<Acl> acls) {
        Entry e = byAcl.get(acls);
        if (e == null) {
            e = new Entry(nextId++, List.copyOf(acls));
            byAcl.put(e.acls, e);
        }
        e.refs++;
        return e;
    }

    /** One reference fewer; the entry goes when none is left. */
    synchronized void release(Entry e) {
        if (e == null) {
            return;
        }
        if (--e.refs <= 0 && byAcl.get(e.acls) == e) {
            byAcl.remove(e.acls);
        }
    }

    /** Number of distinct ACLs. */
    synchronized int size() {
        return byAcl.size();
    }

    /** ACL → reference count, for checks. */
    synchronized Map<List<Acl>, Long> refCounts() {
        Map<List<Acl>, Long> m = new HashMap<>();
        byAcl.forEach((acl, e) -> m.put(acl, e.refs));
        return m;
    }

    /** Takes over {@code other}'s entries (a snapshot install: the nodes now refer to them). */
    synchronized void replaceWith(AclTable other) {
        synchronized (other) {
            byAcl.clear();
            byAcl.putAll(other.byAcl);
            nextId = Math.max(nextId, other.nextId);
        }
    }

    /** id → ACL, sorted, for dumps. */
    synchronized Map<Long, List<Acl>> byId() {
        Map<Long, List<Acl>> m = new TreeMap<>();
        byAcl.values().forEach(e -> m.put(e.id, e.acls));
        return m;
    }
}
