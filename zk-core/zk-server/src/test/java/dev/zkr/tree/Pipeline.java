package dev.zkr.tree;

import dev.zkr.client.CreateMode;
import dev.zkr.client.OpResult;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkException;

import java.util.ArrayList;
import java.util.List;

/** Test driver: prepare, "log" (record), apply, release — the server pipeline without I/O. */
final class Pipeline {
    final DataTree tree;
    final TxnPreparer preparer;
    final WatchTable watches = new WatchTable();
    final List<TxnCodec.Entry> log = new ArrayList<>();
    final List<WatchDelivery> delivered = new ArrayList<>();
    long zxid;
    long time = 1_000;

    Pipeline() {
        this.tree = new DataTree();
        this.preparer = new TxnPreparer(tree, 1024);
    }

    /** A pipeline whose preparer has these limits (data limit 1024 bytes). */
    Pipeline(int maxEphemeralsPerSession, int maxTxnBytes) {
        this.tree = new DataTree();
        this.preparer = new TxnPreparer(tree, 1024, maxEphemeralsPerSession, maxTxnBytes);
    }

    /** Prepares and applies; returns the apply result or throws the typed failure. */
    ApplyResult submit(long session, Request request) {
        Prepared p = preparer.prepare(request, session, zxid + 1);
        if (p instanceof Prepared.Failed f) {
            throw exception(f);
        }
        TxnHeader h = new TxnHeader(++zxid, time += 7, session, 0);
        Txn txn = ((Prepared.Ok) p).txn();
        log.add(new TxnCodec.Entry(h, txn));
        ApplyResult r = tree.apply(h, txn);
        preparer.applied(h.zxid());
        delivered.addAll(watches.trigger(r.triggers()));
        return r;
    }

    /** Prepares only (not applied); returns the header+txn. */
    TxnCodec.Entry prepareOnly(long session, Request request) {
        Prepared p = preparer.prepare(request, session, zxid + 1);
        if (p instanceof Prepared.Failed f) {
            throw exception(f);
        }
        TxnCodec.Entry e = new TxnCodec.Entry(new TxnHeader(++zxid, time += 7, session, 0), ((Prepared.Ok) p).txn());
        log.add(e);
        return e;
    }

    ApplyResult applyEntry(TxnCodec.Entry e) {
        ApplyResult r = tree.apply(e.header(), e.txn());
        preparer.applied(e.header().zxid());
        delivered.addAll(watches.trigger(r.triggers()));
        return r;
    }

    String create(long session, String path, String data, CreateMode mode) {
        return ((OpResult.CreateResult) submit(session, new Request.Create(path, data.getBytes(), mode)).single())
                .path();
    }

    String create(String path, CreateMode mode) {
        return create(1, path, "", mode);
    }

    String create(String path) {
        return create(path, CreateMode.PERSISTENT);
    }

    void delete(String path, int version) {
        submit(1, new Request.Delete(path, version));
    }

    Stat setData(String path, String data, int version) {
        return ((OpResult.SetDataResult) submit(1, new Request.SetData(path, data.getBytes(), version)).single())
                .stat();
    }

    void openSession(long id) {
        submit(id, new Request.CreateSession(id, 10_000, new byte[] {1, 2}));
    }

    void closeSession(long id) {
        submit(id, new Request.CloseSession(id));
    }

    /** The exception a client builds from a failure reply. */
    static ZkException exception(Prepared.Failed f) {
        ZkException e = ZkException.of(f.code(), f.path());
        return f.multiResults().isEmpty() ? e : e.withMultiResults(f.multiResults());
    }

    static ZkException.Code codeOf(Runnable r) {
        try {
            r.run();
            return ZkException.Code.OK;
        } catch (ZkException e) {
            return e.code();
        }
    }
}
