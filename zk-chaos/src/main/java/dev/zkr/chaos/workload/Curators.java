package dev.zkr.chaos.workload;

import dev.zkr.chaos.Clients;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.util.concurrent.TimeUnit;

/** Curator clients for the {@code curator-*} workloads: same session timeout as the run's other clients. */
final class Curators {

    private static final int CONNECT_MS = 30_000;

    private Curators() {
    }

    /** A started Curator client, connected before this returns. */
    static CuratorFramework open(String connectString) throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(connectString)
                .sessionTimeoutMs((int) Clients.SESSION_TIMEOUT.toMillis()).connectionTimeoutMs(15_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 5, 2_000)).build();
        c.start();
        if (!c.blockUntilConnected(CONNECT_MS, TimeUnit.MILLISECONDS)) {
            c.close();
            throw new IllegalStateException("Curator could not connect to " + connectString + " in " + CONNECT_MS
                    + " ms");
        }
        return c;
    }
}
