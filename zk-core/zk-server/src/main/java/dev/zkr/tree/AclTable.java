package dev.zkr.tree;

import dev.zkr.client.Acl;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The distinct ACLs of a tree, each stored once with a reference count (ZooKeeper's ReferenceCountedACLCache): a
 * million nodes with the same ACL share one {@link Entry}. An entry is an ACL and an aversion (the number of ACL
 * changes of the nodes that hold it): nodes whose ACL was never changed share the entry of aversion 0, so the
 * aversion costs a node nothing. Nodes hold their entry; snapshots write the entry's id per node and the table once
 * (an ACL held with two aversions is listed under both ids). Ids are local to one tree (txns carry ACL lists, never
 * ids). Thread-safe: the apply thread interns and releases; snapshot writers and readers only read entries, which are
 * immutable.
 */
final class AclTable {

    /** One distinct ACL with one aversion, and its id in this table. */
    static final class Entry {
        final long id;
        final List<Acl> acls;
        /** The aversion of the nodes holding this entry. */
        final int aversion;
        /** Nodes referring to it; guarded by the table. */
        private long refs;

        Entry(long id, List<Acl> acls, int aversion) {
            this.id = id;
            this.acls = acls;
            this.aversion = aversion;
        }

        private Key key() {
            return new Key(acls, aversion);
        }

        @Override
        public String toString() {
            return id + "=" + acls + (aversion == 0 ? "" : " aversion " + aversion);
        }
    }

    private record Key(List<Acl> acls, int aversion) {
    }

    private final Map<Key, Entry> byAcl = new HashMap<>();
    private long nextId = 1;

    /** The entry of this ACL with aversion 0, with one more reference (created on first use). */
    Entry intern(List<Acl> acls) {
        return intern(acls, 0);
    }

    /** The entry of this ACL and aversion with one more reference (created on first use). */
    synchronized Entry intern(List<Acl> acls, int aversion) {
        Entry e = byAcl.get(new Key(acls, aversion));
        if (e == null) {
            e = new Entry(nextId++, List.copyOf(acls), aversion);
            byAcl.put(e.key(), e);
        }
        e.refs++;
        return e;
    }

    /** One reference fewer; the entry goes when none is left. */
    synchronized void release(Entry e) {
        if (e == null) {
            return;
        }
        if (--e.refs <= 0 && byAcl.get(e.key()) == e) {
            byAcl.remove(e.key());
        }
    }

    /** Number of distinct ACLs (whatever the aversions of the nodes holding them). */
    synchronized int size() {
        return (int) byAcl.keySet().stream().map(Key::acls).distinct().count();
    }

    /** ACL → reference count (all aversions together), for checks. */
    synchronized Map<List<Acl>, Long> refCounts() {
        Map<List<Acl>, Long> m = new HashMap<>();
        byAcl.forEach((key, e) -> m.merge(key.acls(), e.refs, Long::sum));
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
