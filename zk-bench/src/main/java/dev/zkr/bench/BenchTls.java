package dev.zkr.bench;

import dev.zkr.client.TlsConfig;
import dev.zkr.testkit.TlsMaterial;

import java.nio.file.Path;

/**
 * The TLS rows' throwaway material (made with zk-testkit's {@link TlsMaterial}: keytool at run time, nothing
 * committed): one CA, one server certificate for 127.0.0.1 in a PKCS#12 key store, the CA in a PKCS#12 trust store.
 * Both systems' servers and clients use the same files; no client certificates.
 */
record BenchTls(TlsMaterial material) {

    static BenchTls generate(Path dir) {
        return new BenchTls(TlsMaterial.generate(dir, "zk-bench-ca"));
    }

    Path keyStore() {
        return material.serverKeyStore();
    }

    Path trustStore() {
        return material.trustStore();
    }

    String password() {
        return TlsMaterial.PASSWORD;
    }

    /** The zkr client's settings: trust the CA, hostname verification on (the certificate names 127.0.0.1). */
    TlsConfig zkrClient() {
        return material.clientTls();
    }
}
