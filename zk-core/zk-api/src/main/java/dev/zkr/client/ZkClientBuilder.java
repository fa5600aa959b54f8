package dev.zkr.client;

import java.time.Duration;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * Configures and connects the native zkr client. Obtain one with {@link ZkClient#builder()}. The client
 * implementation is found on the class path ({@link ZkClientFactory}, provided by {@code dev.zkr:zk-client}) and
 * gets an immutable {@link ZkClientConfig}.
 */
public final class ZkClientBuilder {

    /** Default largest node data size: 1 MiB, as on the server. */
    public static final int DEFAULT_MAX_DATA_SIZE = 1024 * 1024;

    private String connectString;
    private Duration sessionTimeout = Duration.ofSeconds(10);
    private Duration connectTimeout = Duration.ofSeconds(15);
    private Duration requestTimeout = Duration.ofSeconds(30);
    private int maxDataSize = DEFAULT_MAX_DATA_SIZE;
    private boolean renewSessionOnExpiry = true;
    private TlsConfig tls;
    private final java.util.List<ZkClientConfig.AuthInfo> authInfo = new java.util.ArrayList<>();

    ZkClientBuilder() {
    }

    /**
     * Servers to try, {@code host:port,host:port,...} (required), optionally followed by a chroot, as in ZooKeeper:
     * {@code host:port,host:port/app} makes every path of the client relative to {@code /app} (which must exist).
     */
    public ZkClientBuilder connectString(String connectString) {
        this.connectString = Objects.requireNonNull(connectString, "connectString");
        if (connectString.isBlank()) {
            throw new IllegalArgumentException("connectString is empty");
        }
        return this;
    }

    /** Requested session timeout; the server negotiates it within its min/max. Default 10 s. */
    public ZkClientBuilder sessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = positive(sessionTimeout, "sessionTimeout");
        return this;
    }

    /** How long {@link #build()} waits for the first session before failing with ConnectionLoss. Default 15 s. */
    public ZkClientBuilder connectTimeout(Duration connectTimeout) {
        this.connectTimeout = positive(connectTimeout, "connectTimeout");
        return this;
    }

    /** How long a request may wait for its response before failing with OperationTimeout. Default 30 s. */
    public ZkClientBuilder requestTimeout(Duration requestTimeout) {
        this.requestTimeout = positive(requestTimeout, "requestTimeout");
        return this;
    }

    /** Largest node data accepted before sending; the server enforces its own limit too. Default 1 MiB. */
    public ZkClientBuilder maxDataSize(int maxDataSize) {
        if (maxDataSize <= 0) {
            throw new IllegalArgumentException("maxDataSize must be positive: " + maxDataSize);
        }
        this.maxDataSize = maxDataSize;
        return this;
    }

    /**
     * Whether the client opens a new session after reporting {@link ConnectionState#LOST} for an expired one
     * (default true). When false, the client stays LOST and fails every call with SessionExpired.
     */
    public ZkClientBuilder renewSessionOnExpiry(boolean renew) {
        this.renewSessionOnExpiry = renew;
        return this;
    }

    /**
     * Connects over TLS with these settings: trust material for the servers' certificates (none = the JDK's default
     * CAs), key material only for mutual TLS, hostname verification on unless turned off explicitly. A server that
     * does not speak TLS (or whose certificate is not trusted) fails {@link #build()} with ConnectionLoss naming TLS.
     * Default: plaintext.
     */
    public ZkClientBuilder tls(TlsConfig tls) {
        this.tls = Objects.requireNonNull(tls, "tls");
        return this;
    }

    /**
     * Authentication sent on every connect before any request ({@code "digest"}, {@code "user:password".getBytes()});
     * may be called several times.
     */
    public ZkClientBuilder authInfo(String scheme, byte[] auth) {
        authInfo.add(new ZkClientConfig.AuthInfo(Objects.requireNonNull(scheme, "scheme"), auth));
        return this;
    }

    /** Connects and waits until the first session is established. */
    public ZkClient build() {
        if (connectString == null) {
            throw new IllegalStateException("connectString is required");
        }
        ZkClientFactory factory = ServiceLoader.load(ZkClientFactory.class, ZkClientBuilder.class.getClassLoader())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(
                        "no zkr client implementation on the class path: add the dependency dev.zkr:zk-client"));
        String[] serversAndChroot = ChrootedZkClient.split(connectString);
        if (serversAndChroot[1] == null) {
            return factory.open(config(serversAndChroot[0]));
        }
        return new ChrootedZkClient(factory.open(config(serversAndChroot[0])), serversAndChroot[1]);
    }

    /** The settings as they are now, fixed (the connect string as given, with its chroot if it has one). */
    public ZkClientConfig config() {
        if (connectString == null) {
            throw new IllegalStateException("connectString is required");
        }
        return config(connectString);
    }

    private ZkClientConfig config(String connectString) {
        return new ZkClientConfig(connectString, sessionTimeout, connectTimeout, requestTimeout, maxDataSize,
                renewSessionOnExpiry, tls, authInfo);
    }

    public String connectString() {
        return connectString;
    }

    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    public int maxDataSize() {
        return maxDataSize;
    }

    public boolean renewSessionOnExpiry() {
        return renewSessionOnExpiry;
    }

    /** The TLS settings, or null for plaintext. */
    public TlsConfig tls() {
        return tls;
    }

    private static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
        return d;
    }
}
