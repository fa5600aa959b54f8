package dev.zkr.client;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;

/**
 * TLS settings of one side of a connection (a client, a server's client port or its peer port): where this side's
 * own certificate and key are (a PKCS#12 or JKS key store, or a PEM certificate chain and a PKCS#8 PEM key), which
 * certificates it trusts (a trust store or a PEM file of CA certificates; none = the JDK's default CAs), whether a
 * client checks that the server's certificate names the host it dialled (on by default), and whether a server asks
 * clients for certificates ({@link ClientAuth}). Immutable; build with {@link #builder()} or read the {@code ssl.*}
 * keys of a properties file with {@link #fromProperties}.
 *
 * <p>A client needs trust material (unless the server's certificate is signed by a CA the JDK trusts) and key
 * material only for mutual TLS; a server needs key material, and trust material when it asks for client
 * certificates.
 */
public final class TlsConfig {

    /** Whether a server asks connecting clients for a certificate (ZooKeeper's {@code ssl.clientAuth}). */
    public enum ClientAuth {
        /** No client certificate is asked for. */
        NONE,
        /** A client certificate is asked for; a client without one is served, one with an untrusted one is not. */
        WANT,
        /** A trusted client certificate is required: a client without one fails the handshake. */
        NEED
    }

    private final Path keyStore;
    private final String keyStorePassword;
    private final String keyStoreType;
    private final Path trustStore;
    private final String trustStorePassword;
    private final String trustStoreType;
    private final Path certFile;
    private final Path keyFile;
    private final String keyPassword;
    private final Path trustFile;
    private final boolean hostnameVerification;
    private final ClientAuth clientAuth;

    private TlsConfig(Builder b) {
        if (b.keyStore != null && (b.certFile != null || b.keyFile != null)) {
            throw new IllegalArgumentException("give either a key store or PEM certificate and key files, not both");
        }
        if ((b.certFile == null) != (b.keyFile == null)) {
            throw new IllegalArgumentException("PEM key material needs both certFile and keyFile");
        }
        if (b.trustStore != null && b.trustFile != null) {
            throw new IllegalArgumentException("give either a trust store or a PEM trust file, not both");
        }
        this.keyStore = b.keyStore;
        this.keyStorePassword = b.keyStorePassword;
        this.keyStoreType = b.keyStoreType != null ? b.keyStoreType : typeOf(b.keyStore);
        this.trustStore = b.trustStore;
        this.trustStorePassword = b.trustStorePassword;
        this.trustStoreType = b.trustStoreType != null ? b.trustStoreType : typeOf(b.trustStore);
        this.certFile = b.certFile;
        this.keyFile = b.keyFile;
        this.keyPassword = b.keyPassword;
        this.trustFile = b.trustFile;
        this.hostnameVerification = b.hostnameVerification;
        this.clientAuth = b.clientAuth;
    }

    /** A builder: no key or trust material, hostname verification on, no client certificates asked for. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads the TLS keys under {@code prefix} (normally {@code "ssl."}, or {@code "ssl.quorum."} for the peer port),
     * each falling back to the same key under {@code fallbackPrefix} (null: none): {@code keyStore} (also
     * ZooKeeper's {@code keyStore.location}), {@code keyStorePassword} ({@code keyStore.password}),
     * {@code keyStoreType} ({@code keyStore.type}), the same three for {@code trustStore}, {@code certFile},
     * {@code keyFile}, {@code keyPassword}, {@code trustFile}, {@code clientAuth} ({@code none|want|need}) and
     * {@code hostnameVerification} ({@code true|false}). Returns null when no key or trust material is set.
     *
     * @throws IllegalArgumentException on a bad value or contradictory settings
     */
    public static TlsConfig fromProperties(Properties p, String prefix, String fallbackPrefix) {
        Lookup l = new Lookup(p, prefix, fallbackPrefix);
        Builder b = builder();
        String v;
        boolean any = false;
        if ((v = l.get("keyStore", "keyStore.location")) != null) {
            b.keyStore(Path.of(v), l.get("keyStorePassword", "keyStore.password"));
            any = true;
        }
        if ((v = l.get("keyStoreType", "keyStore.type")) != null) {
            b.keyStoreType(v);
        }
        if ((v = l.get("trustStore", "trustStore.location")) != null) {
            b.trustStore(Path.of(v), l.get("trustStorePassword", "trustStore.password"));
            any = true;
        }
        if ((v = l.get("trustStoreType", "trustStore.type")) != null) {
            b.trustStoreType(v);
        }
        String cert = l.get("certFile", null);
        String key = l.get("keyFile", null);
        if (cert != null || key != null) {
            if (cert == null || key == null) {
                throw new IllegalArgumentException(prefix + "certFile and " + prefix + "keyFile go together");
            }
            b.pemKey(Path.of(cert), Path.of(key), l.get("keyPassword", null));
            any = true;
        }
        if ((v = l.get("trustFile", null)) != null) {
            b.pemTrust(Path.of(v));
            any = true;
        }
        if ((v = l.get("clientAuth", null)) != null) {
            try {
                b.clientAuth(ClientAuth.valueOf(v.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(prefix + "clientAuth must be none, want or need: " + v);
            }
        }
        if ((v = l.get("hostnameVerification", null)) != null) {
            if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
                throw new IllegalArgumentException(prefix + "hostnameVerification must be true or false: " + v);
            }
            b.hostnameVerification(Boolean.parseBoolean(v));
        }
        return any ? b.build() : null;
    }

    /** Looks a key up under the prefix, then under the fallback prefix; trimmed, blank = unset. */
    private record Lookup(Properties p, String prefix, String fallback) {
        String get(String key, String alias) {
            for (String pre : fallback == null ? new String[] {prefix} : new String[] {prefix, fallback}) {
                for (String k : alias == null ? new String[] {key} : new String[] {key, alias}) {
                    String v = p.getProperty(pre + k);
                    if (v != null && !v.isBlank()) {
                        return v.trim();
                    }
                }
            }
            return null;
        }
    }

    /** {@code PKCS12} for {@code .p12}/{@code .pfx}, {@code JKS} for {@code .jks}, else the JDK's default type. */
    static String typeOf(Path store) {
        if (store == null) {
            return null;
        }
        String name = store.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".jks")) {
            return "JKS";
        }
        if (name.endsWith(".p12") || name.endsWith(".pfx") || name.endsWith(".pkcs12")) {
            return "PKCS12";
        }
        return java.security.KeyStore.getDefaultType();
    }

    /** True if this side has its own certificate and key (a key store or PEM files). */
    public boolean hasKeyMaterial() {
        return keyStore != null || certFile != null;
    }

    /** True if this side has its own trust material (else the JDK's default CAs are trusted). */
    public boolean hasTrustMaterial() {
        return trustStore != null || trustFile != null;
    }

    /** The files this configuration reads (watched for renewal by a server). */
    public List<Path> files() {
        List<Path> files = new ArrayList<>();
        for (Path p : new Path[] {keyStore, trustStore, certFile, keyFile, trustFile}) {
            if (p != null) {
                files.add(p);
            }
        }
        return files;
    }

    public Path keyStore() {
        return keyStore;
    }

    public String keyStorePassword() {
        return keyStorePassword;
    }

    /** The key store's type: as set, else inferred from the file name's extension. */
    public String keyStoreType() {
        return keyStoreType;
    }

    public Path trustStore() {
        return trustStore;
    }

    public String trustStorePassword() {
        return trustStorePassword;
    }

    /** The trust store's type: as set, else inferred from the file name's extension. */
    public String trustStoreType() {
        return trustStoreType;
    }

    /** PEM certificate chain (this side's certificate first). */
    public Path certFile() {
        return certFile;
    }

    /** PEM PKCS#8 private key (encrypted if {@link #keyPassword()} is set). */
    public Path keyFile() {
        return keyFile;
    }

    public String keyPassword() {
        return keyPassword;
    }

    /** PEM file of trusted (CA) certificates. */
    public Path trustFile() {
        return trustFile;
    }

    /** Whether a client checks the server certificate's names against the host it dialled (default true). */
    public boolean hostnameVerification() {
        return hostnameVerification;
    }

    /** Whether a server asks clients for a certificate (default {@link ClientAuth#NONE}). */
    public ClientAuth clientAuth() {
        return clientAuth;
    }

    /** A builder holding these settings. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.keyStore = keyStore;
        b.keyStorePassword = keyStorePassword;
        b.keyStoreType = keyStoreType;
        b.trustStore = trustStore;
        b.trustStorePassword = trustStorePassword;
        b.trustStoreType = trustStoreType;
        b.certFile = certFile;
        b.keyFile = keyFile;
        b.keyPassword = keyPassword;
        b.trustFile = trustFile;
        b.hostnameVerification = hostnameVerification;
        b.clientAuth = clientAuth;
        return b;
    }

    @Override
    public String toString() { // no passwords
        return "TlsConfig{" + (keyStore != null ? "keyStore=" + keyStore + " (" + keyStoreType + ")" : "")
                + (certFile != null ? "certFile=" + certFile + ", keyFile=" + keyFile : "")
                + (trustStore != null ? ", trustStore=" + trustStore + " (" + trustStoreType + ")" : "")
                + (trustFile != null ? ", trustFile=" + trustFile : "")
                + ", hostnameVerification=" + hostnameVerification + ", clientAuth=" + clientAuth + "}";
    }

    /** Builder of {@link TlsConfig}. */
    public static final class Builder {
        private Path keyStore;
        private String keyStorePassword;
        private String keyStoreType;
        private Path trustStore;
        private String trustStorePassword;
        private String trustStoreType;
        private Path certFile;
        private Path keyFile;
        private String keyPassword;
        private Path trustFile;
        private boolean hostnameVerification = true;
        private ClientAuth clientAuth = ClientAuth.NONE;

        private Builder() {
        }

        /** This side's key and certificate chain from a PKCS#12 ({@code .p12}) or JKS ({@code .jks}) key store. */
        public Builder keyStore(Path file, String password) {
            this.keyStore = Objects.requireNonNull(file, "keyStore");
            this.keyStorePassword = password;
            return this;
        }

        /** The key store's type ({@code PKCS12}, {@code JKS}), when the file name does not tell. */
        public Builder keyStoreType(String type) {
            this.keyStoreType = Objects.requireNonNull(type, "keyStoreType");
            return this;
        }

        /** Trusted certificates from a PKCS#12 or JKS trust store. */
        public Builder trustStore(Path file, String password) {
            this.trustStore = Objects.requireNonNull(file, "trustStore");
            this.trustStorePassword = password;
            return this;
        }

        public Builder trustStoreType(String type) {
            this.trustStoreType = Objects.requireNonNull(type, "trustStoreType");
            return this;
        }

        /**
         * This side's key and certificate chain from PEM files: {@code certFile} holds the chain (own certificate
         * first), {@code keyFile} the PKCS#8 private key ({@code password} null if it is not encrypted).
         */
        public Builder pemKey(Path certFile, Path keyFile, String password) {
            this.certFile = Objects.requireNonNull(certFile, "certFile");
            this.keyFile = Objects.requireNonNull(keyFile, "keyFile");
            this.keyPassword = password;
            return this;
        }

        /** Trusted (CA) certificates from a PEM file. */
        public Builder pemTrust(Path trustFile) {
            this.trustFile = Objects.requireNonNull(trustFile, "trustFile");
            return this;
        }

        /**
         * Whether a client checks that the server's certificate names the host it dialled (endpoint identification
         * as HTTPS does; default true). Turn off only for certificates without the right names, knowing that any
         * holder of a trusted certificate can then impersonate the server.
         */
        public Builder hostnameVerification(boolean verify) {
            this.hostnameVerification = verify;
            return this;
        }

        /** Whether a server asks clients for certificates (default {@link ClientAuth#NONE}). */
        public Builder clientAuth(ClientAuth clientAuth) {
            this.clientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
            return this;
        }

        public TlsConfig build() {
            return new TlsConfig(this);
        }
    }
}
