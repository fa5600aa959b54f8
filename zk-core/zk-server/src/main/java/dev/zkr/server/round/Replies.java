package dev.zkr.server.round;

import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.ZkException;
import dev.zkr.tree.ApplyResult;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.SystemNodes;
import dev.zkr.tree.Prepared;
import dev.zkr.wire.Message;

import java.util.List;

/** Builds wire replies from results and failures (code and text: the client builds the exception). */
final class Replies {

    private Replies() {
    }

    static Message.Reply ok(int xid, long zxid, Message.Body body) {
        return new Message.Reply(xid, zxid, ZkException.Code.OK.intValue(), body, null);
    }

    static Message.Reply error(int xid, long zxid, ZkException.Code code, String message) {
        return new Message.Reply(xid, zxid, code.intValue(), null, message);
    }

    static Message.Reply error(int xid, long zxid, Prepared.Failed f) {
        return failed(xid, zxid, f.code(), f.message(), f.multiResults());
    }

    private static Message.Reply failed(int xid, long zxid, ZkException.Code code, String message,
                                        List<OpResult> multiResults) {
        Message.Body body = multiResults.isEmpty() ? null
                : new Message.MultiBody(multiResults.toArray(new OpResult[0]));
        return new Message.Reply(xid, zxid, code.intValue(), body, message);
    }

    /**
     * The reply to a write sent again, from the reply saved when it was applied, with the zxid of its txn as the
     * first answer had; null (not kept: the client broke its in-flight window) answers an error as of {@code zxid}.
     */
    static Message.Reply saved(Message.Request request, dev.zkr.tree.SavedReply saved, long zxid, DataTree tree) {
        if (saved == null) {
            return error(request.xid(), zxid, ZkException.Code.SYSTEM_ERROR, "write xid " + request.xid()
                    + " was applied before, and its reply is no longer kept (more than "
                    + "the in-flight window of writes since)");
        }
        return fromApply(request, saved.toApplyResult(), saved.zxid(), tree); // as first answered: at its txn's zxid
    }

    /** {@code reply} with the text of {@code failure} (the failure its error txn was made from), if any. */
    static Message.Reply withDetail(Message.Reply reply, Prepared.Failed failure) {
        if (failure == null || reply.code() == ZkException.Code.OK.intValue()) {
            return reply;
        }
        return new Message.Reply(reply.xid(), reply.zxid(), reply.code(), reply.body(), failure.message());
    }

    /**
     * The reply to a write request from what applying its txn produced, the root's Stat shown as reads show it while
     * ZooKeeper's system nodes are ({@code tree} has no /zookeeper of its own: {@code zookeeper} among its children).
     */
    static Message.Reply fromApply(Message.Request request, ApplyResult result, long zxid, DataTree tree) {
        Message.Reply reply = fromApply(request, result, zxid);
        if (request instanceof Message.ReconfigRequest && reply.code() == ZkException.Code.OK.intValue()) {
            return ok(reply.xid(), zxid, members(tree, null)); // the tree applied the change just now
        }
        if (request instanceof Message.ZooKeeperReconfigRequest && reply.code() == ZkException.Code.OK.intValue()) {
            Message.DataBody config = config(tree);
            return config != null ? ok(reply.xid(), zxid, config) : error(reply.xid(), zxid,
                    ZkException.Code.SYSTEM_ERROR, "the membership record applied has gone from the tree");
        }
        if (reply.code() != ZkException.Code.OK.intValue() || tree.contains(SystemNodes.ZOOKEEPER)) {
            return reply;
        }
        if (reply.body() instanceof Message.StatBody s && s.stat() != null
                && ("/".equals(request instanceof Message.SetDataRequest sd ? sd.path() : null)
                || "/".equals(request instanceof Message.SetAclRequest sa ? sa.path() : null))) {
            return new Message.Reply(reply.xid(), reply.zxid(), reply.code(),
                    new Message.StatBody(SystemNodes.root(s.stat())), reply.message());
        }
        if (request instanceof Message.MultiRequest m && reply.body() instanceof Message.MultiBody b) {
            OpResult[] results = b.results().clone();
            boolean changed = false;
            for (int i = 0; i < results.length && i < m.ops().length; i++) {
                if (m.ops()[i] instanceof Op.SetData op && "/".equals(op.path())
                        && results[i] instanceof OpResult.SetDataResult r) {
                    results[i] = new OpResult.SetDataResult(SystemNodes.root(r.stat()));
                    changed = true;
                }
            }
            if (changed) {
                return new Message.Reply(reply.xid(), reply.zxid(), reply.code(), new Message.MultiBody(results),
                        reply.message());
            }
        }
        return reply;
    }

    /**
     * The members the tree applied last, else {@code configured} (the member lines while the ensemble never changed
     * shape; null: a standalone server, no members).
     */
    static Message.MembersBody members(DataTree tree, dev.zkr.tree.Txn.Membership configured) {
        DataTree.AppliedMembership applied = tree.membership();
        dev.zkr.tree.Txn.Membership m = applied != null ? applied.membership() : configured;
        return new Message.MembersBody(m == null ? new dev.zkr.client.EnsembleMember[0]
                : m.members().toArray(new dev.zkr.client.EnsembleMember[0]));
    }

    /**
     * ZooKeeper's answer to its reconfig: /zookeeper/config's data and Stat after the record the tree applied just
     * now (null if the tree holds none, which cannot be once a record was applied).
     */
    private static Message.DataBody config(DataTree tree) {
        DataTree.AppliedMembership m = tree.membership();
        if (m == null) {
            return null;
        }
        SystemNodes shown = SystemNodes.ensembleAfter(m, m.time());
        return new Message.DataBody(shown.data(SystemNodes.CONFIG), shown.stat(SystemNodes.CONFIG));
    }

    /** The reply to a write request from what applying its txn produced (the tree's own Stats). */
    static Message.Reply fromApply(Message.Request request, ApplyResult result, long zxid) {
        int xid = request.xid();
        if (!result.ok()) {
            return failed(xid, zxid, result.code(), new Prepared.Failed(result.code(), result.path(), List.of())
                    .message(), result.results());
        }
        if (request instanceof Message.MultiRequest) {
            return ok(xid, zxid, new Message.MultiBody(result.results().toArray(new OpResult[0])));
        }
        if (result.results().isEmpty()) {
            return ok(xid, zxid, null);
        }
        OpResult r = result.single();
        if (r instanceof OpResult.CreateResult c) {
            return ok(xid, zxid, new Message.CreateBody(c.path(), c.stat()));
        } else if (r instanceof OpResult.SetDataResult s) {
            return ok(xid, zxid, new Message.StatBody(s.stat()));
        }
        return ok(xid, zxid, null);
    }
}
