package dev.zkr.server.round;

import dev.zkr.client.OpResult;
import dev.zkr.client.ZkException;
import dev.zkr.tree.ApplyResult;
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
    static Message.Reply saved(Message.Request request, dev.zkr.tree.SavedReply saved, long zxid) {
        if (saved == null) {
            return error(request.xid(), zxid, ZkException.Code.SYSTEM_ERROR, "write xid " + request.xid()
                    + " was applied before, and its reply is no longer kept (more than "
                    + "the in-flight window of writes since)");
        }
        return fromApply(request, saved.toApplyResult(), saved.zxid()); // as first answered: at its txn's zxid
    }

    /** {@code reply} with the text of {@code failure} (the failure its error txn was made from), if any. */
    static Message.Reply withDetail(Message.Reply reply, Prepared.Failed failure) {
        if (failure == null || reply.code() == ZkException.Code.OK.intValue()) {
            return reply;
        }
        return new Message.Reply(reply.xid(), reply.zxid(), reply.code(), reply.body(), failure.message());
    }

    /** The reply to a write request from what applying its txn produced. */
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
