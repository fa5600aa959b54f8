package dev.zkr.migrate;

import dev.zkr.client.Acl;
import dev.zkr.client.Id;
import org.apache.zookeeper.data.ACL;

import java.util.ArrayList;
import java.util.List;

/** ACLs between ZooKeeper's jute records and zkr's (the same fields: perms, scheme, id). */
final class Acls {
    private Acls() {
    }

    static List<Acl> toZkr(List<ACL> acls) {
        List<Acl> out = new ArrayList<>(acls.size());
        for (ACL a : acls) {
            out.add(new Acl(a.getPerms(), new Id(a.getId().getScheme(), a.getId().getId())));
        }
        return out;
    }

    static List<ACL> toZooKeeper(List<Acl> acls) {
        List<ACL> out = new ArrayList<>(acls.size());
        for (Acl a : acls) {
            out.add(new ACL(a.perms(), new org.apache.zookeeper.data.Id(a.id().scheme(), a.id().id())));
        }
        return out;
    }
}
