package dev.zkr.testkit.tls;

import dev.zkr.client.CreateMode;
import dev.zkr.client.TlsConfig;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkClientBuilder;
import dev.zkr.client.ZkException;
import dev.zkr.server.ServerProbe;
import dev.zkr.testkit.TestEnsemble;
import dev.zkr.testkit.TlsMaterial;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * TLS on the client port, on real sockets with certificates made at test time: TLS clients are served (key stores,
 * PEM files, a JKS trust store), mutual TLS, certificates that must be refused (untrusted, expired, wrong name), the
 * wrong kind of client on a port (plaintext on TLS, TLS on plaintext: a ConnectionLoss naming TLS within the connect
 * timeout), garbage on a TLS port, port unification, and a renewed certificate picked up without a restart.
 */
@Timeout(120)
class TlsClientPortTest {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    /** Material of a second CA, which the servers' material does not trust. */
    private static TlsMaterial other;

    @TempDir
    static Path tmp;

    @BeforeAll
    static void material() {
        TlsMaterial.shared();
        other = TlsMaterial.generate(tmp.resolve("other"), "zkr-other-ca");
    }

    private static ZkClient client(TestEnsemble e, TlsConfig tls) {
        ZkClientBuilder b = ZkClient.builder().connectString(e.connectString()).connectTimeout(CONNECT_TIMEOUT);
        if (tls != null) {
            b.tls(tls);
        }
        return b.build();
    }

    private static void createAndRead(ZkClient c, String path) {
        c.create(path, path.getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT);
        assertArrayEquals(path.getBytes(StandardCharsets.UTF_8), c.getData(path).data());
    }

    /** The client fails with ConnectionLoss naming TLS within the connect timeout (plus scheduling slack). */
    private static ZkException.ConnectionLoss refused(TestEnsemble e, TlsConfig tls, String... mentions) {
        long start = System.nanoTime();
        ZkException.ConnectionLoss loss = assertThrows(ZkException.ConnectionLoss.class, () -> client(e, tls).close());
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms < CONNECT_TIMEOUT.toMillis() + 3_000, "took " + ms + " ms");
        assertTrue(loss.getMessage().contains("TLS"), loss.getMessage());
        for (String m : mentions) {
            assertTrue(loss.getMessage().contains(m), "'" + m + "' in: " + loss.getMessage());
        }
        return loss;
    }

    @Test
    void tlsClientCreatesAndReadsWithKeyStoresPemFilesAndAJksTrustStore() {
        TlsMaterial m = TlsMaterial.shared();
        try (TestEnsemble e = TestEnsemble.builder().tls().start()) {
            createAndRead(e.newClient(), "/p12");
            try (ZkClient pem = client(e, TlsConfig.builder().pemTrust(m.caPem()).build());
                 ZkClient jks = client(e, TlsConfig.builder().trustStore(m.trustStoreJks(), TlsMaterial.PASSWORD)
                         .build())) {
                createAndRead(pem, "/pem");
                createAndRead(jks, "/jks");
                assertArrayEquals("/p12".getBytes(StandardCharsets.UTF_8), pem.getData("/p12").data());
            }
        }
        TlsConfig pemServer = TlsConfig.builder().pemKey(m.serverCertPem(), m.serverKeyPem(), null).build();
        try (TestEnsemble e = TestEnsemble.builder().tls().configure(c -> c.tls(pemServer)).start()) {
            createAndRead(e.newClient(), "/served-from-pem");
        }
    }

    @Test
    void mutualTlsRefusesAClientWithoutCertificateAndShowsTheSubjectOfOneWithIt() {
        TlsMaterial m = TlsMaterial.shared();
        TlsConfig need = m.serverTls().toBuilder().clientAuth(TlsConfig.ClientAuth.NEED).build();
        try (TestEnsemble e = TestEnsemble.builder().tls().configure(c -> c.tls(need)).start()) {
            refused(e, m.clientTls());
            try (ZkClient c = client(e, m.clientTlsWithCertificate())) {
                createAndRead(c, "/mtls");
                assertEquals(List.of(TlsMaterial.CLIENT_SUBJECT), ServerProbe.clientCertificateSubjects(e.server(0)));
            }
            TlsConfig pemClient = m.clientTls().toBuilder().pemKey(m.clientCertPem(), m.clientKeyPem(), null).build();
            try (ZkClient c = client(e, pemClient)) {
                createAndRead(c, "/mtls-pem");
            }
            refused(e, m.clientTls().toBuilder().keyStore(other.clientKeyStore(), TlsMaterial.PASSWORD).build());
        }
        TlsConfig want = m.serverTls().toBuilder().clientAuth(TlsConfig.ClientAuth.WANT).build();
        try (TestEnsemble e = TestEnsemble.builder().tls().configure(c -> c.tls(want)).start()) {
            try (ZkClient anonymous = client(e, m.clientTls())) {
                createAndRead(anonymous, "/want-anonymous");
                assertEquals(List.of(), ServerProbe.clientCertificateSubjects(e.server(0)));
            }
        }
    }

    @Test
    void untrustedExpiredAndMisnamedServerCertificatesAreRefusedWithATlsError() {
        TlsMaterial m = TlsMaterial.shared();
        try (TestEnsemble e = TestEnsemble.builder().tls().start()) {
            refused(e, other.clientTls());
        }
        TlsConfig expired = TlsConfig.builder().keyStore(m.expiredKeyStore(), TlsMaterial.PASSWORD).build();
        try (TestEnsemble e = TestEnsemble.builder().tls().configure(c -> c.tls(expired)).start()) {
            refused(e, m.clientTls());
        }
        // the client certificate names only DNS:zkr-test-client: as a server certificate for 127.0.0.1 it is refused,
        // unless the client turns hostname verification off explicitly
        TlsConfig misnamed = TlsConfig.builder().keyStore(m.clientKeyStore(), TlsMaterial.PASSWORD).build();
        try (TestEnsemble e = TestEnsemble.builder().tls().configure(c -> c.tls(misnamed)).start()) {
            refused(e, m.clientTls(), "127.0.0.1");
            try (ZkClient c = client(e, m.clientTls().toBuilder().hostnameVerification(false).build())) {
                createAndRead(c, "/unverified");
            }
        }
    }

    @Test
    void plaintextClientOnATlsPortAndTlsClientOnAPlaintextPortGetAClearError() {
        try (TestEnsemble e = TestEnsemble.builder().tls().start()) {
            ZkClient good = e.newClient();
            refused(e, null, "requires TLS");
            createAndRead(good, "/still-served");
        }
        try (TestEnsemble e = TestEnsemble.builder().start()) {
            ZkClient good = e.newClient();
            refused(e, TlsMaterial.shared().clientTls(), "plaintext");
            createAndRead(good, "/still-served");
        }
    }

    @Test
    void garbageOnATlsPortClosesThatConnectionAndOthersAreServed() throws IOException {
        // a TLS header followed by too few bytes for its record waits for the handshake timeout: keep it short
        try (TestEnsemble e = TestEnsemble.builder().tls().configure(c -> c.handshakeTimeout(Duration.ofSeconds(2)))
                .start()) {
            ZkClient good = e.newClient();
            byte[] garbage = new byte[512];
            new Random(42).nextBytes(garbage);
            garbage[0] = 0x7f;
            expectClosed(e, garbage);
            byte[] tlsHeaderThenGarbage = garbage.clone();
            tlsHeaderThenGarbage[0] = 22; // handshake record, TLS 1.0 framing, then nonsense
            tlsHeaderThenGarbage[1] = 3;
            tlsHeaderThenGarbage[2] = 1;
            expectClosed(e, tlsHeaderThenGarbage);
            createAndRead(good, "/after-garbage");
            try (ZkClient fresh = e.newClient()) {
                createAndRead(fresh, "/fresh-after-garbage");
            }
        }
    }

    private static void expectClosed(TestEnsemble e, byte[] bytes) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", e.port(0)), 5000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            try {
                while (in.read() >= 0) {
                    // an alert may come before the close
                }
            } catch (SocketException reset) {
                // closed with a reset: closed too
            } catch (SocketTimeoutException t) {
                fail("the server kept the connection open");
            }
        }
    }

    @Test
    void portUnificationServesTlsAndPlaintextClientsOnOnePort() {
        try (TestEnsemble e = TestEnsemble.builder().tls().configure(c -> c.portUnification(true)).start()) {
            try (ZkClient tls = client(e, TlsMaterial.shared().clientTls()); ZkClient plain = client(e, null)) {
                createAndRead(tls, "/tls");
                createAndRead(plain, "/plain");
                assertArrayEquals("/tls".getBytes(StandardCharsets.UTF_8), plain.getData("/tls").data());
            }
        }
    }

    @Test
    void aRenewedServerCertificateFromAnotherCaIsUsedByNewConnectionsWithoutRestart() throws IOException {
        TlsMaterial mine = TlsMaterial.shared();
        Path dir = Files.createDirectories(tmp.resolve("renewable"));
        Path keyStore = dir.resolve("server.p12"); // a copy the test may replace
        Files.copy(mine.serverKeyStore(), keyStore, StandardCopyOption.REPLACE_EXISTING);
        TlsConfig renewable = TlsConfig.builder().keyStore(keyStore, TlsMaterial.PASSWORD).build();
        Consumer<dev.zkr.server.ServerConfig.Builder> fastReload = c -> c.tls(renewable)
                .tlsReloadInterval(Duration.ofMillis(100));
        try (TestEnsemble e = TestEnsemble.builder().tls().configure(fastReload).start()) {
            ZkClient before = e.newClient();
            createAndRead(before, "/before");
            Path staged = dir.resolve("server.p12.new");
            Files.copy(other.serverKeyStore(), staged, StandardCopyOption.REPLACE_EXISTING);
            Files.move(staged, keyStore, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            ZkClient renewed = null;
            while (renewed == null) {
                try {
                    renewed = client(e, other.clientTls());
                } catch (ZkException.ConnectionLoss notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("the renewed certificate was not picked up", notYet);
                    }
                }
            }
            try (ZkClient c = renewed) {
                createAndRead(c, "/renewed");
            }
            createAndRead(before, "/old-connection-still-served");
            refused(e, mine.clientTls()); // the old CA no longer signs what the server presents
        }
    }
}
