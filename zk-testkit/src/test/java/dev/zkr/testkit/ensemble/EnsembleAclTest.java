package dev.zkr.testkit.ensemble;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeAcl;
import dev.zkr.client.Op;
import dev.zkr.client.Perms;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static dev.zkr.testkit.ensemble.Ensembles.digestClient;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static dev.zkr.testkit.ensemble.Ensembles.settledLeader;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * ACLs in a 3-server ensemble: a write sent to a follower is checked at the leader with the auth ids of the client's
 * connection on the follower (forwarded with it, as ZooKeeper's followers forward a request's authInfo); ACLs and
 * aversion are replicated txns, read on another follower; reads are checked on the server that serves them.
 */
@Timeout(120)
class EnsembleAclTest {

    private static final byte[] ALICE = "alice:secret".getBytes(StandardCharsets.UTF_8);

    @Test
    void forwardedWritesAreCheckedWithTheSessionsAuthAndAclsReplicate() {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).superDigest(Acls.generateDigest("super:admin"))
                .start()) {
            int leader = settledLeader(e);
            int follower = others(3, leader)[0];
            int other = others(3, leader)[1];
            ZkClient alice = digestClient(e, follower, ALICE);
            // CREATOR_ALL can only expand at the leader if the follower forwarded alice's id with the create
            alice.create("/secure", "s".getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT, Acls.CREATOR_ALL);
            List<Acl> expected = List.of(new Acl(Perms.ALL, Acls.digest("alice", "secret")));
            assertEquals(expected, alice.getAcl("/secure").acls());
            ZkClient anonymous = digestClient(e, follower, null);
            assertThrows(ZkException.NoAuth.class, () -> anonymous.getData("/secure")); // checked on the follower
            assertThrows(ZkException.NoAuth.class, () -> anonymous.setData("/secure", new byte[0], -1));
            assertThrows(ZkException.NoAuth.class,
                    () -> anonymous.create("/secure/kid", new byte[0], CreateMode.PERSISTENT));
            assertThrows(ZkException.InvalidAcl.class,
                    () -> anonymous.create("/mine", new byte[0], CreateMode.PERSISTENT, Acls.CREATOR_ALL));
            ZkException multi = assertThrows(ZkException.NoAuth.class, () -> anonymous.multi(List.of(
                    Op.create("/free", new byte[0], CreateMode.PERSISTENT),
                    Op.setData("/secure", new byte[0], -1))));
            assertEquals(2, multi.multiResults().size());
            assertEquals(null, anonymous.exists("/free"));
            // setAcl through the follower, with the aversion check done at the leader
            List<Acl> withReaders = List.of(expected.get(0), new Acl(Perms.READ, Acls.ANYONE_ID_UNSAFE));
            assertEquals(1, alice.setAcl("/secure", withReaders, 0).aversion());
            assertThrows(ZkException.BadVersion.class, () -> alice.setAcl("/secure", expected, 0));
            // replicated: read on the other follower; reads checked there
            ZkClient aliceElsewhere = digestClient(e, other, ALICE);
            aliceElsewhere.sync("/secure");
            NodeAcl acl = aliceElsewhere.getAcl("/secure");
            assertEquals(withReaders, acl.acls());
            assertEquals(1, acl.stat().aversion());
            ZkClient reader = digestClient(e, other, null);
            reader.sync("/secure");
            assertArrayEquals("s".getBytes(StandardCharsets.UTF_8), reader.getData("/secure").data());
            assertThrows(ZkException.NoAuth.class, () -> reader.setData("/secure", new byte[0], -1));
            alice.setAcl("/secure", expected, 1);
            reader.sync("/secure");
            assertThrows(ZkException.NoAuth.class, () -> reader.getData("/secure"));
            // the super id is forwarded like any other: a follower's super session passes the leader's checks
            alice.create("/secure/kid", new byte[0], CreateMode.PERSISTENT, Acls.CREATOR_ALL);
            assertThrows(ZkException.NoAuth.class, () -> reader.delete("/secure/kid", -1));
            ZkClient admin = digestClient(e, other, "super:admin".getBytes(StandardCharsets.UTF_8));
            admin.delete("/secure/kid", -1);
            admin.delete("/secure", -1);
        }
    }
}
