package dev.zkr.apache.curator;

import dev.zkr.testkit.TestEnsemble;
import org.apache.curator.ensemble.EnsembleProvider;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Curator 5.7.1's EnsembleTracker on a zkr ensemble (issues 27, 29): it watches /zookeeper/config and rebuilds its
 * connect string from the client addresses there. A static ensemble's text has none, so the connect string stays as
 * given; once the ensemble grows ({@code addServer}), the watch fires and the tracker hands its ensemble provider every
 * member's address, the new server's included.
 */
@Timeout(120)
class EnsembleTrackerOnZkrTest {

    /** An ensemble provider that records the connect strings the tracker sets. */
    private static final class Recording implements EnsembleProvider {
        private volatile String current;
        final BlockingQueue<String> set = new LinkedBlockingQueue<>();

        Recording(String initial) {
            current = initial;
        }

        @Override
        public void start() {
        }

        @Override
        public String getConnectionString() {
            return current;
        }

        @Override
        public void close() {
        }

        @Override
        public void setConnectionString(String connectionString) {
            current = connectionString;
            set.add(connectionString);
        }

        @Override
        public boolean updateServerListEnabled() {
            return true;
        }
    }

    private static Set<String> addresses(String connectString) {
        return Arrays.stream(connectString.split(",")).map(String::trim).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void theConnectStringGrowsWithTheEnsemble() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            Recording provider = new Recording(e.connectString());
            try (CuratorFramework curator = CuratorFrameworkFactory.builder().ensembleProvider(provider)
                    .ensembleTracker(true).retryPolicy(new ExponentialBackoffRetry(100, 10))
                    .sessionTimeoutMs(30_000).build()) {
                curator.start();
                assertTrue(curator.blockUntilConnected(30, TimeUnit.SECONDS));
                curator.create().forPath("/before", new byte[] {1});

                int added = e.addServer();
                Set<String> wanted = new TreeSet<>();
                for (int i = 0; i <= added; i++) {
                    wanted.add("127.0.0.1:" + e.port(i));
                }
                String seen;
                do {
                    seen = provider.set.poll(30, TimeUnit.SECONDS);
                    assertNotNull(seen, "the tracker set no connect string with every member within 30 s");
                } while (!addresses(seen).equals(wanted));
                assertEquals(wanted, addresses(provider.getConnectionString()));
                assertTrue(curator.checkExists().forPath("/before") != null, "the client works on");
            }
        }
    }
}
