package dev.zkr.client;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings of one client, as fixed by {@link ZkClientBuilder#build()}: immutable, so a client never sees a
 * builder changed after it was built.
 *
 * @param connectString        servers to try, {@code host:port,host:port,...}
 * @param sessionTimeout       requested session timeout (the server negotiates it)
 * @param connectTimeout       how long building waits for the first session
 * @param requestTimeout       how long a request may wait for its response
 * @param maxDataSize          largest node data accepted before sending
 * @param renewSessionOnExpiry whether a new session is opened after an expiry
 * @param tls                  TLS settings, or null for plaintext connections
 * @param authInfo             authentication sent on every connect, in order
 */
public record ZkClientConfig(String connectString, Duration sessionTimeout, Duration connectTimeout,
                             Duration requestTimeout, int maxDataSize, boolean renewSessionOnExpiry,
                             TlsConfig tls, java.util.List<AuthInfo> authInfo) {

    /** One authentication: a scheme and its bytes (for {@code digest}: {@code user:password}). */
    public record AuthInfo(String scheme, byte[] auth) {
        public AuthInfo {
            Objects.requireNonNull(scheme, "scheme");
            auth = auth == null ? new byte[0] : auth.clone();
        }

        @Override
        public String toString() {
            return "AuthInfo[" + scheme + ", " + auth.length + " B]"; // never the secret
        }
    }

    /** Settings of a plaintext client without authentication. */
    public ZkClientConfig(String connectString, Duration sessionTimeout, Duration connectTimeout,
                          Duration requestTimeout, int maxDataSize, boolean renewSessionOnExpiry) {
        this(connectString, sessionTimeout, connectTimeout, requestTimeout, maxDataSize, renewSessionOnExpiry, null,
                java.util.List.of());
    }

    public ZkClientConfig {
        Objects.requireNonNull(connectString, "connectString");
        Objects.requireNonNull(sessionTimeout, "sessionTimeout");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        authInfo = authInfo == null ? java.util.List.of() : java.util.List.copyOf(authInfo);
    }
}
