package dev.zkr.tree;

import dev.zkr.client.Acl;

import java.util.List;

/** The projected state of one node that Prep validates against ({@code ttl}: a TTL node). */
record NodeRecord(int version, int cversion, int numChildren, long ephemeralOwner, boolean container,
                  List<Acl> acls, int aversion, boolean ttl) {

    NodeRecord withVersion(int v) {
        return new NodeRecord(v, cversion, numChildren, ephemeralOwner, container, acls, aversion, ttl);
    }

    NodeRecord withChild(int cversionAfter, int delta) {
        return new NodeRecord(version, cversionAfter, numChildren + delta, ephemeralOwner, container, acls, aversion, ttl);
    }

    NodeRecord withAcl(List<Acl> newAcls, int newAversion) {
        return new NodeRecord(version, cversion, numChildren, ephemeralOwner, container, newAcls, newAversion, ttl);
    }
}
