package dev.zkr.chaos;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.client.ZkClient;

import java.time.Duration;

/** Opens clients of the system under test: zkr's own client, or zk-apache's client of a ZooKeeper ensemble. */
public final class Clients {

    /** Session timeout of every client of a run (within both systems' 2..20 tick bounds at a 2 s tick). */
    public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(8);
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

    private final String system;

    public Clients(String system) {
        this.system = system;
    }

    public String system() {
        return system;
    }

    /** A new client (which renews its session after an expiry), connected before this returns. */
    public ZkClient open(String connectString) {
        if (system.equals("zookeeper")) {
            return ApacheZkClient.builder().connectString(connectString).sessionTimeout(SESSION_TIMEOUT)
                    .connectTimeout(CONNECT_TIMEOUT).build();
        }
        return ZkClient.builder().connectString(connectString).sessionTimeout(SESSION_TIMEOUT)
                .connectTimeout(CONNECT_TIMEOUT).build();
    }
}
