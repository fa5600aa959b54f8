package dev.zkr.server.round;

import dev.zkr.auth.Authorizer;
import dev.zkr.client.Acl;
import dev.zkr.client.Id;
import dev.zkr.client.Perms;
import dev.zkr.tree.DataTree;

import java.util.List;

/**
 * The one rule for reading a node: the identities {@code ids} may see a node's data, its Stat and its children's
 * names when its ACL grants them READ (ZooKeeper's {@code checkACL} in {@code getData}, {@code exists} and
 * {@code getChildren}). The client port ({@link ReadStage}) and the admin endpoint ({@code AdminView}) both ask it,
 * inside a round, so the ACL and the data they read belong to the same state of the tree.
 */
public final class ReadAccess {

    private final DataTree tree;
    private final Authorizer authorizer;

    public ReadAccess(DataTree tree, Authorizer authorizer) {
        this.tree = tree;
        this.authorizer = authorizer;
    }

    /** Whether {@code ids} may READ the node at {@code path} (true for a node that does not exist). */
    public boolean mayRead(String path, List<Id> ids) {
        List<Acl> acl = tree.aclOf(path);
        return acl == null || authorizer.allowed(acl, Perms.READ, ids);
    }
}
