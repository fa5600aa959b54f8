package dev.zkr.testkit.tls;

import dev.zkr.client.Acl;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Perms;
import dev.zkr.client.TlsConfig;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import dev.zkr.testkit.TlsMaterial;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The {@code x509} ACL scheme on real sockets: with {@code ssl.clientAuth=want}, a client presenting a verified
 * certificate holds {@code x509:<subject>} from its first request; an ACL naming that subject admits it and nobody
 * else (another certificate, a TLS client without one, a plaintext client on a unified port), also after a restart;
 * {@code addAuthInfo("x509", ...)} cannot claim a subject; {@code ssl.x509SuperUser} passes every ACL.
 */
@Timeout(120)
class X509AclTest {

    private static final String ALICE = "CN=alice,O=zkr";
    private static final String BOB = "CN=bob,O=zkr";
    private static final String ADMIN = "CN=admin,OU=ops,O=zkr";
    private static final byte[] SECRET = "alice's".getBytes(StandardCharsets.UTF_8);

    private static TlsMaterial m;
    private static Path alice;
    private static Path bob;
    private static Path admin;

    @BeforeAll
    static void certificates() {
        m = TlsMaterial.shared();
        List<Path> stores = m.issueClientKeyStores(ALICE, BOB, ADMIN);
        alice = stores.get(0);
        bob = stores.get(1);
        admin = stores.get(2);
    }

    private static TestEnsemble start(String superUser) {
        TlsConfig want = m.serverTls().toBuilder().clientAuth(TlsConfig.ClientAuth.WANT).build();
        return TestEnsemble.builder().tls().configure(c -> c.tls(want).portUnification(true).x509SuperUser(superUser))
                .start();
    }

    private static ZkClient client(TestEnsemble e, TlsConfig tls) {
        return e.newClient(b -> {
            b.tls(tls);
            b.connectTimeout(Duration.ofSeconds(5));
        });
    }

    /** A plaintext client (the port is unified); closed by the caller's try. */
    private static ZkClient plaintext(TestEnsemble e) {
        return ZkClient.builder().connectString(e.connectString()).connectTimeout(Duration.ofSeconds(5)).build();
    }

    private static void refusedEverything(ZkClient c, String path) {
        assertThrows(ZkException.NoAuth.class, () -> c.getData(path));
        assertThrows(ZkException.NoAuth.class, () -> c.setData(path, new byte[] {1}, -1));
        assertThrows(ZkException.NoAuth.class, () -> c.getAcl(path));
        assertThrows(ZkException.NoAuth.class, () -> c.create(path + "/child", new byte[0], CreateMode.PERSISTENT));
    }

    @Test
    void onlyTheCertificateNamedInTheAclIsAdmittedAlsoAfterARestart() {
        try (TestEnsemble e = start(null)) {
            ZkClient a = client(e, m.clientTlsWithCertificate(alice));
            List<Acl> acl = List.of(Acl.of(Perms.ALL, "x509", ALICE));
            a.create("/alice", SECRET, CreateMode.PERSISTENT, acl);
            assertArrayEquals(SECRET, a.getData("/alice").data());
            a.setData("/alice", SECRET, -1);
            assertEquals(acl, a.getAcl("/alice").acls());

            refusedEverything(client(e, m.clientTlsWithCertificate(bob)), "/alice");
            refusedEverything(client(e, m.clientTls()), "/alice");
            ZkClient plain = plaintext(e);
            try {
                refusedEverything(plain, "/alice");
                assertThrows(ZkException.AuthFailed.class,
                        () -> plain.addAuthInfo("x509", ALICE.getBytes(StandardCharsets.UTF_8)));
            } finally {
                plain.close();
            }
            // the scheme cannot be claimed: without a certificate AUTH_FAILED, and nothing is gained
            ZkClient noCert = client(e, m.clientTls());
            assertThrows(ZkException.AuthFailed.class,
                    () -> noCert.addAuthInfo("x509", ALICE.getBytes(StandardCharsets.UTF_8)));
            ZkClient claimer = client(e, m.clientTls());
            claimer.addAuthInfo("digest", "alice:pw".getBytes(StandardCharsets.UTF_8));
            refusedEverything(claimer, "/alice");
            ZkClient b = client(e, m.clientTlsWithCertificate(bob));
            b.addAuthInfo("x509", ALICE.getBytes(StandardCharsets.UTF_8)); // bob's certificate: bob, never alice
            refusedEverything(b, "/alice");

            // auth: expands to the certificate's id
            a.create("/alice/by-auth", new byte[0], CreateMode.PERSISTENT, List.of(Acl.of(Perms.ALL, "auth", "")));
            assertEquals(List.of(Acl.of(Perms.ALL, "x509", ALICE)), a.getAcl("/alice/by-auth").acls());

            e.restart(0);
            ZkClient again = client(e, m.clientTlsWithCertificate(alice));
            assertArrayEquals(SECRET, again.getData("/alice").data());
            assertEquals(acl, again.getAcl("/alice").acls());
            assertArrayEquals(SECRET, a.getData("/alice").data()); // alice's first session, reconnected
            refusedEverything(client(e, m.clientTlsWithCertificate(bob)), "/alice");
            try (ZkClient plainAgain = plaintext(e)) {
                refusedEverything(plainAgain, "/alice");
            }
        }
    }

    @Test
    void theConfiguredSuperUserCertificatePassesEveryAcl() {
        try (TestEnsemble e = start(ADMIN)) {
            ZkClient a = client(e, m.clientTlsWithCertificate(alice));
            a.create("/alice", SECRET, CreateMode.PERSISTENT, List.of(Acl.of(Perms.ALL, "x509", ALICE)));
            ZkClient root = client(e, m.clientTlsWithCertificate(admin));
            assertArrayEquals(SECRET, root.getData("/alice").data());
            root.setAcl("/alice", List.of(Acl.of(Perms.READ, "x509", BOB)), -1);
            root.delete("/alice", -1);
            assertEquals(null, a.exists("/alice"));
        }
    }

    @Test
    void inAnEnsembleTheCertificateIdIsForwardedWithWritesFromAFollower() {
        TlsConfig need = m.serverTls().toBuilder().clientAuth(TlsConfig.ClientAuth.NEED).build();
        try (TestEnsemble e = TestEnsemble.builder().servers(3).tls().configure(c -> c.tls(need)).start()) {
            int follower = (e.leader() + 1) % 3;
            ZkClient a = e.newClient(b -> b.connectString(e.connectString(follower))
                    .tls(m.clientTlsWithCertificate(alice)));
            // auth: is expanded on the leader, from the ids the follower forwarded
            a.create("/alice", SECRET, CreateMode.PERSISTENT, List.of(Acl.of(Perms.ALL, "auth", "")));
            a.setData("/alice", new byte[] {7}, -1);
            a.create("/alice/child", new byte[0], CreateMode.PERSISTENT);
            assertEquals(List.of(Acl.of(Perms.ALL, "x509", ALICE)), a.getAcl("/alice").acls());
            ZkClient b = e.newClient(c -> c.connectString(e.connectString(follower))
                    .tls(m.clientTlsWithCertificate(bob)));
            b.sync("/alice");
            refusedEverything(b, "/alice");
            assertThrows(ZkException.NoAuth.class, () -> b.delete("/alice/child", -1));
        }
    }
}
