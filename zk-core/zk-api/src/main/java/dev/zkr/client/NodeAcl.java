package dev.zkr.client;

import java.util.List;

/** A node's ACL and its Stat (whose {@code aversion} is what {@link ZkClient#setAcl} compares with). */
public record NodeAcl(List<Acl> acls, Stat stat) {
    public NodeAcl {
        acls = List.copyOf(acls);
    }
}
