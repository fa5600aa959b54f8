package dev.zkr.server.zookeeper;

import dev.zkr.client.Acl;
import dev.zkr.client.Id;
import dev.zkr.client.Stat;
import org.apache.zookeeper.data.ACL;

import java.util.ArrayList;
import java.util.List;

/** zkr's value types ↔ ZooKeeper's jute records: Stat field by field, ACL entries, child lists. */
final class Records {

    private Records() {
    }

    /** zkr's Stat as ZooKeeper's (same fields and meanings; jute orders pzxid last). Null stays null. */
    static org.apache.zookeeper.data.Stat stat(Stat s) {
        if (s == null) {
            return null;
        }
        return new org.apache.zookeeper.data.Stat(s.czxid(), s.mzxid(), s.ctime(), s.mtime(), s.version(),
                s.cversion(), s.aversion(), s.ephemeralOwner(), s.dataLength(), s.numChildren(), s.pzxid());
    }

    /** zkr's ACL as ZooKeeper's. */
    static List<ACL> acls(Acl[] acls) {
        List<ACL> out = new ArrayList<>(acls == null ? 0 : acls.length);
        if (acls != null) {
            for (Acl a : acls) {
                out.add(new ACL(a.perms(), new org.apache.zookeeper.data.Id(a.id().scheme(), a.id().id())));
            }
        }
        return out;
    }

    /**
     * A request's ACL as zkr's: a missing list (jute's -1) is empty (the server refuses it with INVALID_ACL, as
     * ZooKeeper refuses a null or empty ACL); null if an entry has no id, scheme or id string (answered INVALIDACL).
     */
    static Acl[] acls(List<ACL> acls) {
        if (acls == null) {
            return new Acl[0];
        }
        Acl[] out = new Acl[acls.size()];
        for (int i = 0; i < out.length; i++) {
            ACL a = acls.get(i);
            if (a == null || a.getId() == null || a.getId().getScheme() == null || a.getId().getId() == null) {
                return null;
            }
            out[i] = new Acl(a.getPerms(), new Id(a.getId().getScheme(), a.getId().getId()));
        }
        return out;
    }

    /** The connection's identities as ZooKeeper's ClientInfo records. */
    static List<org.apache.zookeeper.data.ClientInfo> clientInfos(dev.zkr.client.ClientInfo[] infos) {
        List<org.apache.zookeeper.data.ClientInfo> out = new ArrayList<>(infos == null ? 0 : infos.length);
        if (infos != null) {
            for (dev.zkr.client.ClientInfo i : infos) {
                out.add(new org.apache.zookeeper.data.ClientInfo(i.authScheme(), i.user()));
            }
        }
        return out;
    }

    /** Names as a list for a jute vector (null = jute's absent vector). */
    static List<String> list(String[] names) {
        return names == null ? null : List.of(names);
    }

    /** A jute vector of strings as an array (absent = empty). */
    static String[] array(List<String> names) {
        return names == null ? new String[0] : names.toArray(new String[0]);
    }
}
