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
 */
public record ZkClientConfig(String connectString, Duration sessionTimeout, Duration connectTimeout,
                             Duration requestTimeout, int maxDataSize, boolean renewSessionOnExpiry,
                             TlsConfig tls) {

    /** Settings of a plaintext client. */
    public ZkClientConfig(String connectString, Duration sessionTimeout, Duration connectTimeout,
                          Duration requestTimeout, int maxDataSize, boolean renewSessionOnExpiry) {
        this(connectString, sessionTimeout, connectTimeout, requestTimeout, maxDataSize, renewSessionOnExpiry, null);
    }

    public ZkClientConfig {
        Objects.requireNonNull(connectString, "connectString");
        Objects.requireNonNull(sessionTimeout, "sessionTimeout");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
    }
}
