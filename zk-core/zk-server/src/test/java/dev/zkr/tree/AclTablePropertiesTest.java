package dev.zkr.tree;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Perms;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deduplicated ACL table's reference counts match the tree (one per node holding each ACL) after any sequence of
 * creates, setAcls, deletes and session closes; a snapshot round trip keeps every node's ACL and the counts.
 */
class AclTablePropertiesTest {

    private static final List<List<Acl>> ACLS = List.of(
            Acls.OPEN_UNSAFE,
            Acls.READ_ONLY,
            List.of(new Acl(Perms.ALL, Acls.digest("alice", "pw"))),
            List.of(new Acl(Perms.READ | Perms.WRITE, Acls.digest("bob", "pw")), new Acl(Perms.READ,
                    Acls.ANYONE_ID_UNSAFE)),
            List.of(Acl.of(Perms.ALL, "ip", "10.0.0.0/8")));

    private static final List<String> PATHS = List.of("/a", "/b", "/a/x", "/a/y", "/b/x", "/a/x/z");

    record Step(int kind, String path, int acl, long session) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Step> step = Combinators.combine(Arbitraries.integers().between(0, 4), Arbitraries.of(PATHS),
                Arbitraries.integers().between(0, ACLS.size() - 1), Arbitraries.longs().between(0, 2))
                .as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(60);
    }

    @Property
    void referenceCountsMatchTheTree(@ForAll("steps") List<Step> steps) throws IOException {
        DataTree tree = new DataTree();
        TxnPreparer preparer = new TxnPreparer(tree);
        long zxid = 0;
        for (Step s : steps) {
            Request r = switch (s.kind()) {
                case 0 -> new Request.Create(s.path(), new byte[0], CreateMode.PERSISTENT, ACLS.get(s.acl()));
                case 1 -> new Request.Create(s.path(), new byte[0],
                        s.session() == 0 ? CreateMode.PERSISTENT : CreateMode.EPHEMERAL, ACLS.get(s.acl()));
                case 2 -> new Request.SetAcl(s.path(), ACLS.get(s.acl()), -1);
                case 3 -> new Request.Delete(s.path(), -1);
                default -> new Request.CloseSession(Math.max(1, s.session()));
            };
            long z = ++zxid;
            Prepared p = preparer.prepare(r, Math.max(1, s.session()), z);
            if (p instanceof Prepared.Ok ok) {
                tree.apply(new TxnHeader(z, z, Math.max(1, s.session()), 1), ok.txn());
            } else {
                zxid--;
            }
            preparer.applied(z);
            tree.checkInvariants(); // includes: each ACL's reference count == number of nodes holding it
        }
        assertTrue(tree.distinctAcls() <= ACLS.size(), "each distinct ACL is stored once");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        tree.writeSnapshot(new DataOutputStream(bytes));
        DataTree loaded = DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        loaded.checkInvariants();
        assertEquals(tree.canonicalDump(), loaded.canonicalDump());
        assertEquals(tree.distinctAcls(), loaded.distinctAcls());
    }

    @Test
    void aSnapshotWithoutAclsLoadsWithEveryNodeOpen() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(0x5A4B5253);
        out.writeInt(1); // format 1: no aversion, no ACL id, no table
        out.writeLong(7);
        out.writeByte(0); // no sessions
        for (String path : List.of("/a", "/")) {
            out.writeByte(1);
            TxnCodec.writeString(out, path);
            boolean root = path.equals("/");
            out.writeLong(root ? 0 : 7); // czxid
            out.writeLong(root ? 0 : 7); // mzxid
            out.writeLong(7); // pzxid
            out.writeLong(0); // ctime
            out.writeLong(0); // mtime
            out.writeInt(0);
            out.writeInt(path.equals("/") ? 1 : 0);
            out.writeLong(0);
            out.writeBoolean(false);
            TxnCodec.writeBytes(out, new byte[] {1});
        }
        out.writeByte(0);
        DataTree tree = DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        tree.checkInvariants();
        assertEquals(Acls.OPEN_UNSAFE, tree.getAcl("/a").acls());
        assertEquals(0, tree.getAcl("/a").stat().aversion());
        assertEquals(1, tree.distinctAcls());
    }

    @Test
    void anInstalledSnapshotBringsItsAclTable() throws IOException {
        DataTree source = new DataTree();
        TxnPreparer preparer = new TxnPreparer(source);
        long z = 0;
        for (Request r : List.<Request>of(
                new Request.Create("/a", new byte[0], CreateMode.PERSISTENT, ACLS.get(2)),
                new Request.Create("/b", new byte[0], CreateMode.PERSISTENT, ACLS.get(2)),
                new Request.SetAcl("/b", ACLS.get(3), 0))) {
            z++;
            Prepared.Ok ok = (Prepared.Ok) preparer.prepare(r, 1, z);
            source.apply(new TxnHeader(z, z, 1, 1), ok.txn());
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        source.writeSnapshot(new DataOutputStream(bytes));
        DataTree target = new DataTree();
        target.apply(new TxnHeader(1, 1, 1, 1), new Txn.CreateNode("/old", new byte[0], 0, false, 1, ACLS.get(4)));
        target.replaceWith(DataTree.readSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()))));
        target.checkInvariants();
        assertEquals(ACLS.get(2), target.getAcl("/a").acls());
        assertEquals(ACLS.get(3), target.getAcl("/b").acls());
        assertEquals(1, target.getAcl("/b").stat().aversion());
        assertEquals(3, target.distinctAcls());
        target.apply(new TxnHeader(z + 1, z + 1, 1, 1), new Txn.DeleteNode("/a"));
        target.checkInvariants();
    }
}
