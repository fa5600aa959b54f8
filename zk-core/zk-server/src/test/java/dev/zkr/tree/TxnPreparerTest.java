package dev.zkr.tree;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkException.Code;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.zkr.tree.Pipeline.codeOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TxnPreparerTest {
    private final Pipeline p = new Pipeline();

    @Test
    void allModes() {
        p.openSession(3);
        assertEquals("/p", p.create(3, "/p", "", CreateMode.PERSISTENT));
        assertEquals("/p/s0000000000", p.create(3, "/p/s", "", CreateMode.PERSISTENT_SEQUENTIAL));
        assertEquals("/p/e", p.create(3, "/p/e", "", CreateMode.EPHEMERAL));
        assertEquals("/p/es0000000002", p.create(3, "/p/es", "", CreateMode.EPHEMERAL_SEQUENTIAL));
        assertEquals("/p/c", p.create(3, "/p/c", "", CreateMode.CONTAINER));
        assertEquals(0, p.tree.exists("/p/s0000000000").ephemeralOwner());
        assertEquals(3, p.tree.exists("/p/e").ephemeralOwner());
        assertEquals(3, p.tree.exists("/p/es0000000002").ephemeralOwner());
                p.create("/p/c/x");
        p.delete("/p/c/x", -1);
        assertEquals(List.of("/p/c"), p.tree.containersToDelete());
    }

    @Test
    void sequentialNamesComeFromParentCversionLikeZooKeeper() {
        p.create("/q");
        assertEquals("/q/n-0000000000", p.create("/q/n-", CreateMode.PERSISTENT_SEQUENTIAL));
        p.create("/q/plain");
        p.delete("/q/plain", -1); // delete does not advance the counter
        assertEquals("/q/n-0000000002", p.create("/q/n-", CreateMode.PERSISTENT_SEQUENTIAL));
        assertEquals("/q/0000000003", p.create("/q/", CreateMode.PERSISTENT_SEQUENTIAL));
        assertEquals("/0000000001", p.create("/", CreateMode.PERSISTENT_SEQUENTIAL));
    }

    @Test
    void pendingSequentialCreatesGetDistinctIncreasingNumbers() {
        p.create("/q");
        List<TxnCodec.Entry> entries = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            entries.add(p.prepareOnly(1, new Request.Create("/q/n-", new byte[0], CreateMode.EPHEMERAL_SEQUENTIAL)));
        }
        for (int i = 0; i < 5; i++) {
            assertEquals("/q/n-000000000" + i, ((Txn.CreateNode) entries.get(i).txn()).path());
        }
        // a delete of a pending node is validated against the pending state
        assertEquals(Code.OK, codeOf(() -> p.prepareOnly(1, new Request.Delete("/q/n-0000000002", 0))));
        assertEquals(Code.NO_NODE, codeOf(() -> p.prepareOnly(1, new Request.Delete("/q/n-0000000002", -1))));
        assertEquals(6, p.preparer.pendingCount()); // /q and its 5 (one now deleted) children
        for (TxnCodec.Entry e : List.copyOf(p.log.subList(1, p.log.size()))) {
            p.applyEntry(e);
        }
        assertEquals(0, p.preparer.pendingCount());
        assertEquals(4, p.tree.exists("/q").numChildren());
        assertEquals(6, p.tree.exists("/q").cversion()); // 5 creations + 1 deletion
    }

    @Test
    void errors() {
        p.create("/a");
        p.openSession(2);
        p.create(2, "/eph", "", CreateMode.EPHEMERAL);
        assertEquals(Code.NO_NODE, codeOf(() -> p.create("/missing/child")));
        ZkException e = assertThrows(ZkException.class, () -> p.create("/missing/child"));
        assertEquals("/missing", e.path());
        assertEquals(Code.NODE_EXISTS, codeOf(() -> p.create("/a")));
        assertEquals(Code.NO_CHILDREN_FOR_EPHEMERALS, codeOf(() -> p.create("/eph/x")));
        assertEquals(Code.INVALID_PATH, codeOf(() -> p.create("a")));
        assertEquals(Code.INVALID_PATH, codeOf(() -> p.create("/a/")));
        assertEquals(Code.INVALID_PATH, codeOf(() -> p.create("/a/../b")));
        assertEquals(Code.INVALID_PATH, codeOf(() -> p.delete("/a//b", -1)));
        assertEquals(Code.BAD_ARGUMENTS, codeOf(() -> p.create("/")));
        assertEquals(Code.BAD_ARGUMENTS, codeOf(() -> p.delete("/", -1)));
        assertEquals(Code.BAD_ARGUMENTS, codeOf(() -> p.submit(0, new Request.Create("/x", new byte[0],
                CreateMode.EPHEMERAL))));
        // null data is ZooKeeper's null data (NullDataTest), no longer BAD_ARGUMENTS
        assertEquals(Code.DATA_TOO_LARGE, codeOf(() -> p.submit(1, new Request.Create("/x", new byte[1025],
                CreateMode.PERSISTENT))));
        assertEquals(Code.DATA_TOO_LARGE, codeOf(() -> p.submit(1, new Request.SetData("/a", new byte[1025], -1))));
        assertEquals(Code.OK, codeOf(() -> p.submit(1, new Request.SetData("/a", new byte[1024], -1))));
        assertEquals(Code.BAD_VERSION, codeOf(() -> p.setData("/a", "", 0)));
        assertEquals(Code.OK, codeOf(() -> p.setData("/a", "", 1)));
        assertEquals(Code.BAD_VERSION, codeOf(() -> p.delete("/a", 7)));
        assertEquals(Code.NO_NODE, codeOf(() -> p.setData("/zz", "", -1)));
        assertEquals(Code.NO_NODE, codeOf(() -> p.delete("/zz", -1)));
        p.create("/a/b");
        assertEquals(Code.NOT_EMPTY, codeOf(() -> p.delete("/a", -1)));
        assertEquals(Code.BAD_VERSION, codeOf(() -> p.submit(1, new Request.Check("/a", 0))));
        assertEquals(Code.OK, codeOf(() -> p.submit(1, new Request.Check("/a", 2))));
        assertEquals(Code.BAD_ARGUMENTS, codeOf(() -> p.submit(0, new Request.DeleteContainer("/a/b"))));
        assertEquals(Code.BAD_ARGUMENTS, codeOf(() -> p.submit(1, new Request.CreateSession(5, 0, new byte[0]))));
        assertEquals(0, p.preparer.pendingCount());
    }

    @Test
    void failedPrepareConsumesNothing() {
        p.create("/q");
        long before = p.zxid;
        assertEquals(Code.NODE_EXISTS, codeOf(() -> p.create("/q")));
        assertEquals(before, p.zxid);
        assertEquals(0, p.preparer.pendingCount());
    }

    @Test
    void multiIsAllOrNothingWithPerOpCodes() {
        p.create("/a");
        ZkException e = assertThrows(ZkException.class, () -> p.submit(1, Request.multi(List.of(
                Op.create("/a/x", new byte[0], CreateMode.PERSISTENT),
                Op.setData("/a", new byte[0], 0),
                Op.delete("/nope", -1),
                Op.check("/a", 0)))));
        assertEquals(Code.NO_NODE, e.code());
        assertEquals(List.of(new OpResult.ErrorResult(Code.OK), new OpResult.ErrorResult(Code.OK),
                new OpResult.ErrorResult(Code.NO_NODE), new OpResult.ErrorResult(Code.RUNTIME_INCONSISTENCY)),
                e.multiResults());
        assertNull(p.tree.exists("/a/x"));
        assertEquals(0, p.tree.exists("/a").version());
        assertEquals(0, p.preparer.pendingCount());
        // a failed multi leaves no trace: the same create works afterwards with the same sequence number
        assertEquals("/a/s0000000000", p.create("/a/s", CreateMode.PERSISTENT_SEQUENTIAL));
    }

    @Test
    void multiOpsSeeEarlierOps() {
        ApplyResult r = p.submit(1, Request.multi(List.of(
                Op.create("/m", new byte[0], CreateMode.PERSISTENT),
                Op.create("/m/s-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL),
                Op.create("/m/s-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL),
                Op.setData("/m", new byte[] {1}, 0),
                Op.check("/m", 1),
                Op.delete("/m/s-0000000000", 0))));
        List<OpResult> res = r.results();
        assertEquals(6, res.size());
        assertEquals("/m/s-0000000000", ((OpResult.CreateResult) res.get(1)).path());
        assertEquals("/m/s-0000000001", ((OpResult.CreateResult) res.get(2)).path());
        assertEquals(1, ((OpResult.SetDataResult) res.get(3)).stat().version());
        assertInstanceOf(OpResult.CheckResult.class, res.get(4));
        assertInstanceOf(OpResult.DeleteResult.class, res.get(5));
        long z = p.zxid;
        assertEquals(z, p.tree.exists("/m").czxid());
        assertEquals(z, p.tree.exists("/m/s-0000000001").czxid());
        assertNull(p.tree.exists("/m/s-0000000000"));
        assertEquals(3, p.tree.exists("/m").cversion()); // 2 creations + 1 deletion
        assertEquals(1, p.tree.exists("/m").numChildren());
        // the deleted node: cannot delete a node a previous op made non-empty
        ZkException e = assertThrows(ZkException.class, () -> p.submit(1, Request.multi(List.of(
                Op.create("/m/child", new byte[0], CreateMode.PERSISTENT),
                Op.delete("/m/child", -1),
                Op.create("/m/x", new byte[0], CreateMode.PERSISTENT),
                Op.delete("/m", -1)))));
        assertEquals(Code.NOT_EMPTY, e.code());
        assertNotNull(p.tree.exists("/m"));
    }

    @Test
    void emptyMultiSucceeds() {
        assertEquals(List.of(), p.submit(1, new Request.Multi(List.of())).results());
    }

    @Test
    void nestedMultiAndSessionOpsInsideMultiAreBadArguments() {
        ZkException e = assertThrows(ZkException.class, () -> p.submit(1, new Request.Multi(List.of(
                new Request.Create("/x", new byte[0], CreateMode.PERSISTENT),
                new Request.CloseSession(1)))));
        assertEquals(Code.BAD_ARGUMENTS, e.code());
        assertEquals(new OpResult.ErrorResult(Code.OK), e.multiResults().get(0));
    }

    @Test
    void closeSessionSeesPendingEphemeralsAndFreesThePathsForLaterCreates() {
        p.openSession(4);
        p.create("/l");
        p.create(4, "/l/applied", "", CreateMode.EPHEMERAL);
        TxnCodec.Entry pendingCreate = p.prepareOnly(4, new Request.Create("/l/pending", new byte[0],
                CreateMode.EPHEMERAL));
        TxnCodec.Entry close = p.prepareOnly(4, new Request.CloseSession(4));
        assertEquals(new Txn.CloseSession(4), close.txn()); // path-free: the tree derives what to delete
        // another session can take the lock path before the close is applied
        TxnCodec.Entry retake = p.prepareOnly(5, new Request.Create("/l/applied", new byte[0], CreateMode.PERSISTENT));
        assertNotNull(retake);
        p.applyEntry(pendingCreate);
        p.applyEntry(close);
        p.applyEntry(retake);
        assertEquals(0, p.tree.exists("/l/applied").ephemeralOwner());
        assertNull(p.tree.exists("/l/pending"));
        assertEquals(0, p.preparer.pendingCount());
    }

    @Test
    void deleteContainerRequiresEmpty() {
        p.create("/c", CreateMode.CONTAINER);
        p.create("/c/x");
        assertEquals(Code.NOT_EMPTY, codeOf(() -> p.submit(0, new Request.DeleteContainer("/c"))));
        assertEquals(Code.NO_NODE, codeOf(() -> p.submit(0, new Request.DeleteContainer("/nope"))));
    }

    @Test
    void failedCanBeSequencedAsErrorTxn() {
        Prepared f = p.preparer.prepare(Request.multi(List.of(Op.check("/nope", -1))), 1, 1);
        Txn.Error err = ((Prepared.Failed) f).toTxn();
        ApplyResult r = p.tree.apply(new TxnHeader(1, 0, 1, 0), err);
        assertEquals(Code.NO_NODE, r.code());
        assertEquals(List.of(new OpResult.ErrorResult(Code.NO_NODE)), r.results());
    }

    @Test
    void failureMessageIsTheTextOfTheExceptionTheClientBuilds() {
        for (Prepared.Failed f : List.of(Prepared.Failed.of(Code.NO_NODE, "/a/b", null),
                Prepared.Failed.of(Code.SESSION_EXPIRED, null, "session is closed or expired"),
                Prepared.Failed.of(Code.BAD_ARGUMENTS, "/x", ""), Prepared.Failed.of(Code.INVALID_PATH, null, null))) {
            assertEquals(ZkException.of(f.code(), f.path(), f.detail()).getMessage(), f.message());
        }
    }

    @Test
    void ephemeralsPerSessionAreCappedCountingPendingCreatesAndDeletes() {
        Pipeline q = new Pipeline(3, TxnPreparer.DEFAULT_MAX_TXN_BYTES);
        q.openSession(4);
        q.openSession(5);
        q.create(1, "/p", "", CreateMode.PERSISTENT); // persistent nodes do not count
        q.create(4, "/a", "", CreateMode.EPHEMERAL);
        TxnCodec.Entry second = q.prepareOnly(4, new Request.Create("/b", new byte[0], CreateMode.EPHEMERAL));
        TxnCodec.Entry third = q.prepareOnly(4, new Request.Create("/c", new byte[0], CreateMode.EPHEMERAL));
        ZkException e = assertThrows(ZkException.TooManyEphemerals.class,
                () -> q.prepareOnly(4, new Request.Create("/d", new byte[0], CreateMode.EPHEMERAL)));
        assertEquals("/d", e.path());
        assertEquals(Code.TOO_MANY_EPHEMERALS, assertThrows(ZkException.class, () -> q.prepareOnly(4,
                new Request.Multi(List.of(new Request.Create("/m", new byte[0], CreateMode.EPHEMERAL))))).code());
        q.applyEntry(second);
        q.applyEntry(third);
        q.create(5, "/other", "", CreateMode.EPHEMERAL); // another session has its own count
        // a multi that deletes one and creates one stays within the cap
        q.submit(4, new Request.Multi(List.of(new Request.Delete("/a", -1),
                new Request.Create("/e", new byte[0], CreateMode.EPHEMERAL))));
        assertEquals(3, q.tree.ephemeralCount(4));
        q.closeSession(4);
        q.openSession(6);
        for (String path : List.of("/x", "/y", "/z")) {
            q.create(6, path, "", CreateMode.EPHEMERAL);
        }
        assertEquals(0, q.preparer.pendingCount());
    }

    @Test
    void aMultiWhoseLogRecordCouldExceedTheLimitIsRefusedBeforeItIsSequenced() {
        Pipeline q = new Pipeline(100, 4096);
        q.create(1, "/p", "", CreateMode.PERSISTENT);
        List<Request> ops = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ops.add(new Request.Create("/p/n", new byte[100], CreateMode.PERSISTENT_SEQUENTIAL));
        }
        long before = q.zxid;
        ZkException e = assertThrows(ZkException.TxnTooLarge.class, () -> q.submit(1, new Request.Multi(ops)));
        assertEquals(40, e.multiResults().size());
        assertEquals(new OpResult.ErrorResult(Code.TXN_TOO_LARGE), e.multiResults().get(0));
        assertEquals(0, q.preparer.pendingCount());
        assertEquals(0, q.tree.exists("/p").numChildren());
        assertEquals(before, q.zxid);
        q.submit(1, new Request.Multi(ops.subList(0, 10))); // a smaller one passes
        assertEquals(10, q.tree.exists("/p").numChildren());
    }
}
