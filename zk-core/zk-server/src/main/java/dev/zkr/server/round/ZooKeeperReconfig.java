package dev.zkr.server.round;

import dev.zkr.client.EnsembleMember;
import dev.zkr.client.MembershipChange;
import dev.zkr.client.ZkException;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Txn;
import dev.zkr.wire.Message;

import java.util.ArrayList;
import java.util.List;

/**
 * ZooKeeper's incremental reconfig as one zkr membership change (docs/membership.md, ZooKeeper clients), on the
 * leader: exactly one joining server (a participant is added as a learner, promoted once it caught up; an observer
 * is added as one; an existing observer joining as a participant is promoted) or exactly one leaving id; anything
 * else (several servers, both, ZooKeeper's non-incremental new members) BAD_ARGUMENTS: zkr changes one server at a
 * time. The config version a request names ({@code curConfigId}, -1: any) must be the one in force on the leader:
 * the zxid of the membership record in force (committed: a pending change is RECONFIG_IN_PROGRESS), 0 while the
 * ensemble never changed shape (the member lines), as {@code /zookeeper/config} shows it once applied; else
 * BAD_VERSION. The leader's own tree may not have applied a record it just committed, so the version is the
 * replication's, not the tree's. Checked in ZooKeeper's order: a change pending, the version, the servers.
 */
final class ZooKeeperReconfig {

    private final Replication replication;
    private final DataTree tree;

    ZooKeeperReconfig(Replication replication, DataTree tree) {
        this.replication = replication;
        this.tree = tree;
    }

    /**
     * The change {@code r} asks for.
     *
     * @throws ZkException.ReconfigInProgress the membership in force is not yet the one the tree applied (a change
     *                                        pending or just committed: ask again)
     * @throws ZkException.BadVersion         {@code curConfigId} is not the version in force
     * @throws ZkException.BadArguments       not one server joining or leaving, or a malformed server
     */
    MembershipChange change(Message.ZooKeeperReconfigRequest r) {
        Txn.Membership inForce = replication.membership();
        long record = replication.membershipRecordZxid();
        if (inForce == null || record < 0) {
            throw new ZkException.ReconfigInProgress(null, "a membership change is in progress: ask again once it "
                    + "committed");
        }
        DataTree.AppliedMembership applied = tree.membership(); // the log's base when no record is in the log
        long version = record > 0 ? record : applied != null ? applied.zxid() : 0;
        if (r.curConfigId() != -1 && r.curConfigId() != version) {
            throw new ZkException.BadVersion(null, "reconfiguration from version " + Long.toHexString(r.curConfigId())
                    + " failed: the version in force is " + Long.toHexString(version));
        }
        if (r.newMembers() != null) {
            throw new ZkException.BadArguments(null, "zkr changes one server at a time (docs/membership.md): "
                    + "add or remove one server (reconfig -add / -remove), not a new member list");
        }
        List<String> joining = items(r.joiningServers());
        List<String> leaving = items(r.leavingServers());
        if (joining.size() + leaving.size() != 1) {
            throw new ZkException.BadArguments(null, "zkr changes one server at a time (docs/membership.md): "
                    + "one joining server or one leaving id per reconfig, not " + joining.size() + " joining and "
                    + leaving.size() + " leaving");
        }
        if (!leaving.isEmpty()) {
            try {
                return MembershipChange.remove(Integer.parseInt(leaving.get(0)));
            } catch (IllegalArgumentException e) {
                throw new ZkException.BadArguments(null, "leaving server '" + leaving.get(0) + "' is not a server id");
            }
        }
        EnsembleMember m = ZooKeeperServerSpec.parse(joining.get(0));
        EnsembleMember now = inForce.member(m.id());
        if (now != null && now.role() == EnsembleMember.Role.OBSERVER && m.role() == EnsembleMember.Role.VOTER) {
            if (!now.host().equals(m.host()) || now.peerPort() != m.peerPort() || now.clientPort() != m.clientPort()) {
                throw new ZkException.BadArguments(null, "observer " + now + " joins as a participant at other "
                        + "addresses (" + joining.get(0) + "): a promotion keeps the server's addresses");
            }
            return MembershipChange.promote(m.id());
        }
        return m.role() == EnsembleMember.Role.OBSERVER
                ? MembershipChange.addObserver(m.id(), m.host(), m.peerPort(), m.clientPort())
                : MembershipChange.add(m.id(), m.host(), m.peerPort(), m.clientPort());
    }

    /** ZooKeeper's comma-separated list, blanks dropped (null: none). */
    private static List<String> items(String list) {
        List<String> out = new ArrayList<>();
        if (list != null) {
            for (String s : list.split(",")) {
                if (!s.isBlank()) {
                    out.add(s.trim());
                }
            }
        }
        return out;
    }
}
