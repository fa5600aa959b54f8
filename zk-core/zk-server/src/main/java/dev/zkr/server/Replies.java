package dev.zkr.server;

import dev.zkr.client.OpResult;
import dev.zkr.client.ZkException;
import dev.zkr.tree.ApplyResult;
import dev.zkr.wire.Message;

/** Builds wire replies from results and errors. */
final class Replies {

    private Replies() {
    }

    static Message.Reply ok(int xid, long zxid, Message.Body body) {
        return new Message.Reply(xid, zxid, ZkException.Code.OK.intValue(), body, null);
    }

    static Message.Reply error(int xid, long zxid, ZkException.Code code, String message) {
        return new Message.Reply(xid, zxid, code.intValue(), null, message);
    }

    static Message.Reply error(int xid, long zxid, ZkException e) {
        Message.Body body = e.multiResults() == null ? null
                : new Message.MultiBody(e.multiResults().toArray(new OpResult[0]));
        return new Message.Reply(xid, zxid, e.code().intValue(), body, e.getMessage());
    }

    /** The reply to a write request from what applying its txn produced. */
    static Message.Reply fromApply(Message.Request request, ApplyResult result, long zxid) {
        int xid = request.xid();
        if (!result.ok()) {
            return error(xid, zxid, result.toException());
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
