package dev.zkr.wire.tls;

import dev.zkr.client.TlsConfig;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

/**
 * Builds Netty {@link SslContext}s (JDK provider, TLS 1.3 and 1.2) from a {@link TlsConfig}, and the client-side
 * {@link SslHandler} with hostname verification. Key material from a PKCS#12/JKS key store or PEM files (Netty reads
 * PEM); trust from a trust store, a PEM file, or the JDK's default CAs.
 */
public final class SslContexts {

    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private SslContexts() {
    }

    /**
     * A server context: the key material is required, the trust material checks client certificates.
     *
     * @throws IllegalArgumentException naming the file when the material cannot be read
     */
    public static SslContext forServer(TlsConfig c) {
        if (!c.hasKeyMaterial()) {
            throw new IllegalArgumentException("a TLS server needs its certificate and key: set a key store "
                    + "(ssl.keyStore) or PEM files (ssl.certFile and ssl.keyFile)");
        }
        try {
            SslContextBuilder b = c.keyStore() != null
                    ? SslContextBuilder.forServer(keyManagers(c))
                    : SslContextBuilder.forServer(c.certFile().toFile(), c.keyFile().toFile(), c.keyPassword());
            trust(b, c);
            b.clientAuth(switch (c.clientAuth()) {
                case NONE -> ClientAuth.NONE;
                case WANT -> ClientAuth.OPTIONAL;
                case NEED -> ClientAuth.REQUIRE;
            });
            return b.sslProvider(SslProvider.JDK).protocols(PROTOCOLS).build();
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw new IllegalArgumentException("cannot load the TLS material of " + c + ": " + e.getMessage(), e);
        }
    }

    /** A client context: trust material checks the server (none = the JDK's CAs), key material for mutual TLS. */
    public static SslContext forClient(TlsConfig c) {
        try {
            SslContextBuilder b = SslContextBuilder.forClient();
            if (c.keyStore() != null) {
                b.keyManager(keyManagers(c));
            } else if (c.certFile() != null) {
                b.keyManager(c.certFile().toFile(), c.keyFile().toFile(), c.keyPassword());
            }
            trust(b, c);
            return b.sslProvider(SslProvider.JDK).protocols(PROTOCOLS).build();
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw new IllegalArgumentException("cannot load the TLS material of " + c + ": " + e.getMessage(), e);
        }
    }

    /**
     * The handler of a client connection to {@code host:port}; with {@code verifyHost}, the server's certificate
     * must name {@code host} (a DNS or IP subject alternative name, checked as HTTPS does).
     */
    public static SslHandler clientHandler(SslContext context, ByteBufAllocator alloc, String host, int port,
                                           boolean verifyHost) {
        SslHandler handler = context.newHandler(alloc, host, port);
        if (verifyHost) {
            SSLEngine engine = handler.engine();
            SSLParameters params = engine.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            engine.setSSLParameters(params);
        }
        return handler;
    }

    private static void trust(SslContextBuilder b, TlsConfig c) throws IOException, GeneralSecurityException {
        if (c.trustStore() != null) {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(load(c.trustStore(), c.trustStoreType(), c.trustStorePassword()));
            b.trustManager(tmf);
        } else if (c.trustFile() != null) {
            b.trustManager(c.trustFile().toFile());
        }
    }

    private static KeyManagerFactory keyManagers(TlsConfig c) throws IOException, GeneralSecurityException {
        KeyStore ks = load(c.keyStore(), c.keyStoreType(), c.keyStorePassword());
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password(c.keyStorePassword()));
        return kmf;
    }

    private static KeyStore load(Path file, String type, String password) throws IOException,
            GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, password(password));
        }
        return ks;
    }

    private static char[] password(String password) {
        return password == null ? new char[0] : password.toCharArray();
    }
}
