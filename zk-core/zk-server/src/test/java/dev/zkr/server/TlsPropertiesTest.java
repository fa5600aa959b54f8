package dev.zkr.server;

import dev.zkr.client.TlsConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The TLS keys of a properties file: zkr's names, ZooKeeper's aliases, the peer port's fallback, bad values. */
class TlsPropertiesTest {

    private static Properties props(String... kv) {
        Properties p = new Properties();
        p.setProperty("dataDir", "x");
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    @Test
    void noSslKeysMeansPlaintext() {
        ServerConfig c = ServerConfig.fromProperties(props());
        assertNull(c.tls());
        assertNull(c.quorumTls());
        assertFalse(c.portUnification());
    }

    @Test
    void clientPortKeysWithTypesInferredFromTheExtension() {
        ServerConfig c = ServerConfig.fromProperties(props("ssl.keyStore", "/k/server.p12",
                "ssl.keyStorePassword", "pw", "ssl.trustStore", "/k/trust.jks", "ssl.trustStorePassword", "tpw",
                "ssl.clientAuth", "need", "portUnification", "true", "ssl.reloadInterval", "250"));
        TlsConfig t = c.tls();
        assertEquals(Path.of("/k/server.p12"), t.keyStore());
        assertEquals("PKCS12", t.keyStoreType());
        assertEquals("JKS", t.trustStoreType());
        assertEquals("pw", t.keyStorePassword());
        assertEquals(TlsConfig.ClientAuth.NEED, t.clientAuth());
        assertTrue(c.portUnification());
        assertEquals(250, c.tlsReloadInterval().toMillis());
        assertNull(c.quorumTls());
        assertFalse(t.toString().contains("pw"), "no password in " + t);
    }

    @Test
    void zooKeepersKeyNamesAndAnExplicitTypeAreAccepted() {
        TlsConfig t = ServerConfig.fromProperties(props("ssl.keyStore.location", "/k/server.store",
                "ssl.keyStore.password", "pw", "ssl.keyStore.type", "JKS", "ssl.hostnameVerification", "false"))
                .tls();
        assertEquals(Path.of("/k/server.store"), t.keyStore());
        assertEquals("JKS", t.keyStoreType());
        assertEquals("pw", t.keyStorePassword());
        assertFalse(t.hostnameVerification());
    }

    @Test
    void pemFilesNeedBothCertificateAndKey() {
        TlsConfig t = ServerConfig.fromProperties(props("ssl.certFile", "/k/chain.pem", "ssl.keyFile", "/k/key.pem",
                "ssl.trustFile", "/k/ca.pem")).tls();
        assertEquals(Path.of("/k/chain.pem"), t.certFile());
        assertEquals(Path.of("/k/ca.pem"), t.trustFile());
        assertThrows(IllegalArgumentException.class,
                () -> ServerConfig.fromProperties(props("ssl.certFile", "/k/chain.pem")));
    }

    @Test
    void thePeerPortFallsBackToTheClientKeysAndAlwaysRequiresClientCertificates() {
        ServerConfig shared = ServerConfig.fromProperties(props("sslQuorum", "true", "ssl.keyStore", "/k/s.p12",
                "ssl.trustStore", "/k/t.p12"));
        assertEquals(Path.of("/k/s.p12"), shared.quorumTls().keyStore());
        assertEquals(TlsConfig.ClientAuth.NEED, shared.quorumTls().clientAuth());
        ServerConfig own = ServerConfig.fromProperties(props("sslQuorum", "true", "ssl.keyStore", "/k/s.p12",
                "ssl.trustStore", "/k/t.p12", "ssl.quorum.keyStore", "/k/q.p12"));
        assertEquals(Path.of("/k/q.p12"), own.quorumTls().keyStore());
        assertEquals(Path.of("/k/t.p12"), own.quorumTls().trustStore());
        ServerConfig quorumOnly = ServerConfig.fromProperties(props("sslQuorum", "true",
                "ssl.quorum.keyStore", "/k/q.p12", "ssl.quorum.trustStore", "/k/t.p12"));
        assertNull(quorumOnly.tls(), "the client port stays plaintext");
        assertEquals(Path.of("/k/q.p12"), quorumOnly.quorumTls().keyStore());
    }

    @Test
    void badTlsSettingsAreRefusedWithOneMessage() {
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromProperties(props(
                "ssl.keyStore", "/k/s.p12", "ssl.clientAuth", "sometimes")));
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromProperties(props(
                "portUnification", "true")), "unification without TLS");
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromProperties(props(
                "sslQuorum", "true")), "sslQuorum without material");
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromProperties(props(
                "sslQuorum", "true", "ssl.quorum.keyStore", "/k/q.p12")), "peer TLS needs trust material");
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromProperties(props(
                "ssl.keyStore", "/k/s.p12", "ssl.hostnameVerification", "maybe")));
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromProperties(props(
                "ssl.keyStore", "/k/s.p12", "ssl.certFile", "/k/c.pem", "ssl.keyFile", "/k/k.pem")));
    }
}
