package dev.zkr.testkit;

import dev.zkr.client.TlsConfig;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Throwaway TLS material made at test time (nothing is committed): a CA, a server certificate for
 * {@code IP:127.0.0.1, DNS:localhost} signed by it, a client certificate ({@link #CLIENT_SUBJECT}) and an expired
 * server certificate (all with extended key usage serverAuth and clientAuth; the client's names only
 * {@code DNS:zkr-test-client}), as PKCS#12 key stores, a PKCS#12 and a JKS trust store holding the CA, and PEM files
 * (certificate chains, PKCS#8 keys, the CA). Key pairs, requests and signatures come from the JDK's {@code keytool}
 * run as processes (three waves of parallel runs); chains, trust stores and PEM files are written with the
 * {@link KeyStore} API. EC P-256 keys; every password is {@link #PASSWORD}.
 */
public final class TlsMaterial {

    /** Password of every key store and key. */
    public static final String PASSWORD = "zkr-test-pw";
    /** Subject of the client certificate, as the server reads it (RFC 2253). */
    public static final String CLIENT_SUBJECT = "CN=zkr-test-client,O=zkr";

    private static TlsMaterial shared;

    private final Path dir;
    private final String caName;
    private int issued;

    private TlsMaterial(Path dir, String caName) {
        this.dir = dir;
        this.caName = caName;
    }

    /**
     * Generates a new set in {@code dir} (created if needed) under a CA named {@code caName}; takes a few seconds
     * (keytool runs in its own JVMs).
     */
    public static TlsMaterial generate(Path dir, String caName) {
        TlsMaterial m = new TlsMaterial(dir, caName);
        try {
            Files.createDirectories(dir);
            m.make();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot generate TLS material in " + dir, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot generate TLS material in " + dir, e);
        }
        return m;
    }

    /** One set per JVM, made on first use in a temporary directory (deleted when the JVM exits); do not modify. */
    public static synchronized TlsMaterial shared() {
        if (shared == null) {
            try {
                Path d = Files.createTempDirectory("zkr-tls-");
                shared = generate(d, "zkr-test-ca");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(d)));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a directory for TLS material", e);
            }
        }
        return shared;
    }

    // ---- files ----

    public Path dir() {
        return dir;
    }

    /** The CA's own key store (key and self-signed certificate). */
    public Path caKeyStore() {
        return dir.resolve("ca.p12");
    }

    /** The CA certificate, PEM. */
    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    /** PKCS#12 trust store holding the CA certificate. */
    public Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    /** JKS trust store holding the CA certificate. */
    public Path trustStoreJks() {
        return dir.resolve("truststore.jks");
    }

    /** The server's key and chain (server, CA), PKCS#12. */
    public Path serverKeyStore() {
        return dir.resolve("server.p12");
    }

    public Path serverCertPem() {
        return dir.resolve("server-chain.pem");
    }

    public Path serverKeyPem() {
        return dir.resolve("server-key.pem");
    }

    /** The client's key and chain, PKCS#12. */
    public Path clientKeyStore() {
        return dir.resolve("client.p12");
    }

    public Path clientCertPem() {
        return dir.resolve("client-chain.pem");
    }

    public Path clientKeyPem() {
        return dir.resolve("client-key.pem");
    }

    /** A server key store whose certificate (signed by the CA) expired days ago. */
    public Path expiredKeyStore() {
        return dir.resolve("expired.p12");
    }

    // ---- configurations ----

    /** A server's client-port TLS: the server key store, the CA as trust store, no client certificates asked. */
    public TlsConfig serverTls() {
        return TlsConfig.builder().keyStore(serverKeyStore(), PASSWORD).trustStore(trustStore(), PASSWORD).build();
    }

    /** The peer port's TLS (the server's own certificate both ways, the CA as trust). */
    public TlsConfig quorumTls() {
        return serverTls().toBuilder().clientAuth(TlsConfig.ClientAuth.NEED).build();
    }

    /** A client trusting the CA, without a certificate of its own. */
    public TlsConfig clientTls() {
        return TlsConfig.builder().trustStore(trustStore(), PASSWORD).build();
    }

    /** A client trusting the CA and presenting the client certificate (mutual TLS). */
    public TlsConfig clientTlsWithCertificate() {
        return clientTls().toBuilder().keyStore(clientKeyStore(), PASSWORD).build();
    }

    /**
     * Issues one more client certificate per subject (RFC 2253, e.g. {@code CN=alice,O=zkr}), signed by this CA
     * (extended key usage clientAuth), and returns their PKCS#12 key stores (key and chain, {@link #PASSWORD}) in
     * the same order; takes a few seconds (three waves of keytool runs).
     */
    public synchronized List<Path> issueClientKeyStores(String... subjects) {
        String pw = PASSWORD;
        List<String> names = new ArrayList<>();
        for (int i = 0; i < subjects.length; i++) {
            names.add("issued-" + (issued++));
        }
        try {
            List<String[]> wave = new ArrayList<>();
            for (int i = 0; i < subjects.length; i++) {
                wave.add(keypair(names.get(i), subjects[i]));
            }
            run(wave);
            wave.clear();
            for (String name : names) {
                wave.add(new String[] {"-certreq", "-alias", name, "-keystore", store(name), "-storepass", pw,
                    "-file", file(name + ".csr")});
            }
            run(wave);
            wave.clear();
            for (String name : names) {
                wave.add(new String[] {"-gencert", "-alias", "ca", "-keystore", store("ca"), "-storepass", pw,
                    "-rfc", "-ext", "KU=digitalSignature,keyEncipherment", "-ext", "EKU=clientAuth",
                    "-infile", file(name + ".csr"), "-outfile", file(name + ".crt"), "-validity", "30"});
            }
            run(wave);
            X509Certificate ca = (X509Certificate) load(caKeyStore()).getCertificate("ca");
            List<Path> stores = new ArrayList<>();
            for (String name : names) {
                Path storeFile = dir.resolve(name + ".p12");
                KeyStore ks = load(storeFile);
                Key key = ks.getKey(name, pw.toCharArray());
                ks.setKeyEntry(name, key, pw.toCharArray(),
                        new Certificate[] {readCertificate(dir.resolve(name + ".crt")), ca});
                try (OutputStream out = Files.newOutputStream(storeFile)) {
                    ks.store(out, pw.toCharArray());
                }
                stores.add(storeFile);
            }
            return stores;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot issue client certificates in " + dir, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot issue client certificates in " + dir, e);
        }
    }

    /** A client trusting the CA and presenting the certificate of this key store (from {@link #issueClientKeyStores}). */
    public TlsConfig clientTlsWithCertificate(Path keyStore) {
        return clientTls().toBuilder().keyStore(keyStore, PASSWORD).build();
    }

    // ---- generation ----

    private void make() throws IOException, GeneralSecurityException {
        String pw = PASSWORD;
        List<String[]> wave = new ArrayList<>();
        wave.add(keypair("ca", "CN=" + caName + ",O=zkr", "-ext", "bc:c"));
        wave.add(keypair("server", "CN=localhost,O=zkr"));
        wave.add(keypair("client", CLIENT_SUBJECT));
        wave.add(keypair("expired", "CN=localhost,OU=expired,O=zkr"));
        run(wave);
        wave.clear();
        for (String name : new String[] {"server", "client", "expired"}) {
            wave.add(new String[] {"-certreq", "-alias", name, "-keystore", store(name), "-storepass", pw,
                "-file", file(name + ".csr")});
        }
        run(wave);
        wave.clear();
        String[] sign = {"-gencert", "-alias", "ca", "-keystore", store("ca"), "-storepass", pw, "-rfc",
            "-ext", "KU=digitalSignature,keyEncipherment", "-ext", "EKU=serverAuth,clientAuth"};
        String hosts = "SAN=IP:127.0.0.1,DNS:localhost";
        wave.add(concat(sign, "-ext", hosts, "-infile", file("server.csr"), "-outfile", file("server.crt"),
                "-validity", "30"));
        // the client certificate names no address: as a server certificate it fails hostname verification
        wave.add(concat(sign, "-ext", "SAN=DNS:zkr-test-client", "-infile", file("client.csr"),
                "-outfile", file("client.crt"), "-validity", "30"));
        wave.add(concat(sign, "-ext", hosts, "-infile", file("expired.csr"), "-outfile", file("expired.crt"),
                "-startdate", "-10d", "-validity", "1"));
        run(wave);

        X509Certificate ca = (X509Certificate) load(caKeyStore()).getCertificate("ca");
        writePem(caPem(), List.of(ca), null);
        for (String type : new String[] {"PKCS12", "JKS"}) {
            KeyStore trust = KeyStore.getInstance(type);
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca);
            try (OutputStream out = Files.newOutputStream(type.equals("JKS") ? trustStoreJks() : trustStore())) {
                trust.store(out, pw.toCharArray());
            }
        }
        for (String name : new String[] {"server", "client", "expired"}) {
            Path storeFile = dir.resolve(name + ".p12");
            KeyStore ks = load(storeFile);
            Key key = ks.getKey(name, pw.toCharArray());
            X509Certificate signed = readCertificate(dir.resolve(name + ".crt"));
            Certificate[] chain = {signed, ca};
            ks.setKeyEntry(name, key, pw.toCharArray(), chain);
            try (OutputStream out = Files.newOutputStream(storeFile)) {
                ks.store(out, pw.toCharArray());
            }
            if (!name.equals("expired")) {
                writePem(dir.resolve(name + "-chain.pem"), List.of(chain), null);
                writePem(dir.resolve(name + "-key.pem"), List.of(), (PrivateKey) key);
            }
        }
    }

    private String[] keypair(String alias, String dname, String... extra) {
        return concat(new String[] {"-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1",
            "-dname", dname, "-validity", "30", "-keystore", store(alias), "-storetype", "PKCS12",
            "-storepass", PASSWORD, "-keypass", PASSWORD}, extra);
    }

    private String store(String name) {
        return file(name + ".p12");
    }

    private String file(String name) {
        return dir.resolve(name).toString();
    }

    private static String[] concat(String[] a, String... b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** Runs one keytool per argument list, all at once, and waits for them (failing with keytool's output). */
    private static void run(List<String[]> commands) throws IOException {
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        List<Process> running = new ArrayList<>();
        for (String[] args : commands) {
            List<String> cmd = new ArrayList<>();
            cmd.add(keytool);
            cmd.add("-J-XX:TieredStopAtLevel=1");
            cmd.add("-J-XX:+UseSerialGC");
            cmd.addAll(List.of(args));
            running.add(new ProcessBuilder(cmd).redirectErrorStream(true).start());
        }
        for (int i = 0; i < running.size(); i++) {
            Process p = running.get(i);
            String output;
            try (InputStream in = p.getInputStream()) {
                output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            try {
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException("keytool " + commands.get(i)[0] + " did not finish within 60 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while running keytool", e);
            }
            if (p.exitValue() != 0) {
                throw new IOException("keytool " + String.join(" ", commands.get(i)) + " failed (" + p.exitValue()
                        + "): " + output.trim());
            }
        }
    }

    private static KeyStore load(Path file) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }

    private static X509Certificate readCertificate(Path file) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(file)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /** Certificates as {@code CERTIFICATE} blocks, or a key as a PKCS#8 {@code PRIVATE KEY} block. */
    private static void writePem(Path file, List<Certificate> certs, PrivateKey key) throws IOException,
            GeneralSecurityException {
        StringBuilder s = new StringBuilder();
        Base64.Encoder b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
        for (Certificate c : certs) {
            s.append("-----BEGIN CERTIFICATE-----\n").append(b64.encodeToString(c.getEncoded()))
                    .append("\n-----END CERTIFICATE-----\n");
        }
        if (key != null) {
            s.append("-----BEGIN PRIVATE KEY-----\n").append(b64.encodeToString(key.getEncoded()))
                    .append("\n-----END PRIVATE KEY-----\n");
        }
        Files.writeString(file, s.toString(), StandardCharsets.US_ASCII);
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory; the OS cleans it up eventually
        }
    }

    @Override
    public String toString() {
        return "TlsMaterial{" + caName + " in " + dir + "}";
    }
}
