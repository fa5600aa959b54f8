package dev.zkr.tree;

import dev.zkr.client.OpResult;
import dev.zkr.client.ZkException.Code;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Runs steps through TxnPreparer + DataTree with pipelining (prepared txns are applied only at flush points) and,
 * optionally, the naive model in lockstep, asserting agreement. Header time is zxid * 10.
 */
final class Driver {
    final DataTree tree = new DataTree();
    final TxnPreparer preparer = new TxnPreparer(tree, OpGen.MAX_DATA);
    final NaiveModel model;
    final List<TxnCodec.Entry> log = new ArrayList<>();
    private final List<TxnCodec.Entry> queue = new ArrayList<>();
    private long zxid;

    Driver(boolean withModel) {
        this.model = withModel ? new NaiveModel(OpGen.MAX_DATA) : null;
    }

    void run(List<OpGen.Step> steps) {
        for (OpGen.Step step : steps) {
            if (step.request() == null) {
                flush();
                List<String> due = tree.containersToDelete();
                if (model != null) {
                    assertEquals(model.containersToDelete(), due, "containers to delete");
                }
                for (String path : due) {
                    submit(new Request.DeleteContainer(path), 0);
                }
                long now = zxid * 10;
                List<DataTree.ExpiredTtl> expired = tree.expiredTtlNodes(now);
                if (model != null) {
                    assertEquals(model.expiredTtlNodes(now), expired, "TTL nodes to delete");
                }
                for (DataTree.ExpiredTtl e : expired) {
                    submit(new Request.DeleteContainer(e.path(), e.version()), 0);
                }
            } else {
                submit(step.request(), step.session());
            }
            if (step.flush()) {
                flush();
            }
        }
        flush();
    }

    private void submit(Request request, long session) {
        Prepared p = preparer.prepare(request, session, zxid + 1);
        NaiveModel.Outcome expected = model == null ? null : model.run(request, session);
        if (p instanceof Prepared.Ok ok) {
            zxid++;
            TxnCodec.Entry e = new TxnCodec.Entry(new TxnHeader(zxid, zxid * 10, session, 0), ok.txn());
            queue.add(e);
            log.add(e);
            if (expected != null) {
                assertEquals(Code.OK, expected.code(), "model fails " + OpGen.describe(request));
                assertEquals(expected.created(), createdPaths(ok.txn()), "created paths");
            }
        } else if (expected != null) {
            Prepared.Failed f = (Prepared.Failed) p;
            List<Code> codes = f.multiResults().stream().map(r -> ((OpResult.ErrorResult) r).code()).toList();
            assertEquals(expected.code(), f.code(), "code of " + OpGen.describe(request));
            assertEquals(expected.multiCodes(), codes, "multi codes");
        }
    }

    private static List<String> createdPaths(Txn txn) {
        List<String> paths = new ArrayList<>();
        List<Txn> ops = txn instanceof Txn.Multi m ? m.ops() : List.of(txn);
        for (Txn op : ops) {
            if (op instanceof Txn.CreateNode c) {
                paths.add(c.path());
            }
        }
        return paths;
    }

    void flush() {
        for (TxnCodec.Entry e : queue) {
            tree.apply(e.header(), e.txn());
            preparer.applied(e.header().zxid());
        }
        queue.clear();
        assertEquals(0, preparer.pendingCount(), "pending overlay released");
        if (model != null) {
            assertEquals(model.view(), NaiveModel.view(tree));
            assertEquals(model.sessions, new java.util.TreeSet<>(tree.sessions().keySet()));
            for (long s = 1; s <= 3; s++) {
                long owner = s;
                List<String> expected = model.nodes.entrySet().stream().filter(en -> en.getValue().owner == owner)
                        .map(java.util.Map.Entry::getKey).toList();
                assertEquals(expected, tree.ephemerals(s), "ephemerals of " + s);
            }
        }
    }
}
