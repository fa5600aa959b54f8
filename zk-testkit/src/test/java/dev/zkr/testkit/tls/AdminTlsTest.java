package dev.zkr.testkit.tls;

import dev.zkr.client.Acl;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Id;
import dev.zkr.client.Perms;
import dev.zkr.client.TlsConfig;
import dev.zkr.client.ZkClient;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.ZkServer;
import dev.zkr.testkit.TlsMaterial;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admin endpoint over TLS ({@code admin.tls}, the client port's settings): a request presenting a verified
 * client certificate holds {@code x509:<subject>}, so a node whose ACL names alice's subject shows its data to
 * alice's certificate only (and to the x509 super user), and {@code admin.auth} can name a subject for the
 * admin-only views. A plaintext request gets no answer.
 */
@Timeout(120)
class AdminTlsTest {

    private static final String ALICE = "CN=alice,O=zkr";
    private static final String BOB = "CN=bob,O=zkr";
    private static final String ROOT = "CN=root,OU=ops,O=zkr";
    private static final String SECRET = "alice-only-data-5150";

    private static TlsMaterial m;
    private static Path alice;
    private static Path bob;
    private static Path root;

    @TempDir
    Path dir;

    @BeforeAll
    static void certificates() {
        m = TlsMaterial.shared();
        List<Path> stores = m.issueClientKeyStores(ALICE, BOB, ROOT);
        alice = stores.get(0);
        bob = stores.get(1);
        root = stores.get(2);
    }

    @Test
    void aCertificateIsAnX509IdentityOnTheAdminPort() throws Exception {
        TlsConfig want = m.serverTls().toBuilder().clientAuth(TlsConfig.ClientAuth.WANT).build();
        ServerConfig config = ServerConfig.builder(dir).port(0).tls(want).adminPort(0).adminTls(true)
                .x509SuperUser(ROOT).adminAuth(List.of(new Id("x509", BOB))).build();
        try (ZkServer server = ZkServer.start(config);
             ZkClient a = ZkClient.builder().connectString(server.connectString()).tls(
                     m.clientTlsWithCertificate(alice)).connectTimeout(Duration.ofSeconds(5)).build()) {
            a.create("/alice", SECRET.getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT,
                    List.of(new Acl(Perms.ALL, new Id("x509", ALICE))));
            int port = server.adminPort();

            String asAlice = get(port, alice, "/api/node?path=/alice");
            assertTrue(asAlice.startsWith("HTTP/1.1 200") && asAlice.contains(SECRET), asAlice);
            String asBob = get(port, bob, "/api/node?path=/alice");
            assertTrue(asBob.startsWith("HTTP/1.1 401") && !asBob.contains(SECRET), asBob);
            String anonymous = get(port, null, "/api/node?path=/alice");
            assertTrue(anonymous.startsWith("HTTP/1.1 401") && !anonymous.contains(SECRET), anonymous);
            String asRoot = get(port, root, "/api/node?path=/alice");
            assertTrue(asRoot.startsWith("HTTP/1.1 200") && asRoot.contains(SECRET), "the x509 super user: " + asRoot);

            assertTrue(get(port, bob, "/sessions").startsWith("HTTP/1.1 200"), "admin.auth names bob's subject");
            assertTrue(get(port, root, "/sessions").startsWith("HTTP/1.1 200"), "and the super user may");
            assertTrue(get(port, alice, "/sessions").startsWith("HTTP/1.1 401"), "alice may not");

            try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), port)) {
                plain.setSoTimeout(10_000);
                plain.getOutputStream().write("GET /api/node?path=/alice HTTP/1.1\r\nHost: x\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                byte[] answer = plain.getInputStream().readAllBytes();
                assertFalse(new String(answer, StandardCharsets.ISO_8859_1).contains(SECRET),
                        "a plaintext request gets no data");
            }
        }
    }

    /** A GET over TLS trusting the test CA, presenting the key store's certificate (none if null); the whole answer. */
    private static String get(int port, Path keyStore, String target) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(m.trustStore())) {
            trust.load(in, TlsMaterial.PASSWORD.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (keyStore != null) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(keyStore)) {
                ks.load(in, TlsMaterial.PASSWORD.toCharArray());
            }
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, TlsMaterial.PASSWORD.toCharArray());
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            s.getInputStream().transferTo(all);
            return all.toString(StandardCharsets.UTF_8);
        }
    }
}
