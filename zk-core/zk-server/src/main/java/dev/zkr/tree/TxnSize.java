package dev.zkr.tree;

/**
 * An upper bound of a txn's encoded size in the log ({@link TxnCodec}), computed without encoding it: strings count
 * three bytes per UTF-16 char (UTF-8's worst case), and {@link #HEADER_ALLOWANCE} covers the record header. Used
 * to refuse, before it is sequenced, a write whose log record would exceed the log's limit.
 */
final class TxnSize {

    /** Room for the txn header and tags, generous so header fields may be added without revisiting this. */
    static final int HEADER_ALLOWANCE = 256;

    private TxnSize() {
    }

    /** Upper bound of the encoded size of header + txn in bytes. */
    static long upperBound(Txn txn) {
        return HEADER_ALLOWANCE + body(txn);
    }

    private static long body(Txn txn) {
        if (txn instanceof Txn.CreateNode c) {
            return 1 + string(c.path()) + 4 + (c.data() == null ? 0 : c.data().length) + 8 + 1 + 4 + acls(c.acls())
                    + (c.ttlMs() > 0 ? 8 : 0);
        } else if (txn instanceof Txn.SetAcl sa) {
            return 1 + string(sa.path()) + acls(sa.acls()) + 4;
        } else if (txn instanceof Txn.DeleteNode d) {
            return 1 + string(d.path());
        } else if (txn instanceof Txn.SetData s) {
            return 1 + string(s.path()) + 4 + (s.data() == null ? 0 : s.data().length) + 4;
        } else if (txn instanceof Txn.Check c) {
            return 1 + string(c.path()) + 4;
        } else if (txn instanceof Txn.Multi m) {
            long n = 1 + 4;
            for (Txn op : m.ops()) {
                n += body(op);
            }
            return n;
        } else if (txn instanceof Txn.CreateSession cs) {
            return 1 + 8 + 4 + 4 + cs.password().length;
        } else if (txn instanceof Txn.CloseSession) {
            return 1 + 8 + 4;
        } else if (txn instanceof Txn.Error e) {
            return 1 + 4 + string(e.path()) + 4 + 4L * e.multiCodes().size();
        } else if (txn instanceof Txn.NewEpoch) {
            return 1 + 8 + 4;
        } else if (txn instanceof Txn.Membership m) {
            long n = 1 + 4;
            for (dev.zkr.client.EnsembleMember x : m.members()) {
                n += 4 + 1 + string(x.host()) + 4 + 4;
            }
            return n;
        }
        throw new IllegalArgumentException("unknown txn " + txn);
    }

    private static long acls(java.util.List<dev.zkr.client.Acl> acls) {
        long n = 4;
        for (dev.zkr.client.Acl a : acls) {
            n += 4 + string(a.id().scheme()) + string(a.id().id());
        }
        return n;
    }

    private static long string(String s) {
        return 4 + (s == null ? 0 : 3L * s.length());
    }
}
