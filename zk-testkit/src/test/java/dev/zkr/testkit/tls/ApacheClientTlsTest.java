package dev.zkr.testkit.tls;

import dev.zkr.testkit.TestEnsemble;
import dev.zkr.testkit.TlsMaterial;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ClientInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper 3.9's own client over TLS to a zkr server's TLS client port (issue 27): the client's Netty socket with
 * {@code zookeeper.client.secure}, key and trust stores set per client ({@link ZKClientConfig}, nothing JVM-wide);
 * it writes and reads, and the server knows it by its certificate ({@code whoAmI}: the x509 scheme and subject).
 */
@Timeout(120)
class ApacheClientTlsTest {

    @Test
    void zooKeepersClientWritesAndReadsOverTlsAndIsKnownByItsCertificate() throws Exception {
        TlsMaterial m = TlsMaterial.shared();
        // client certificates asked for (ssl.clientAuth=need, as ZooKeeper's default for its secure port)
        dev.zkr.client.TlsConfig need = m.serverTls().toBuilder().clientAuth(dev.zkr.client.TlsConfig.ClientAuth.NEED)
                .build();
        try (TestEnsemble e = TestEnsemble.builder().tls().configure(c -> c.tls(need)).start()) {
            ZKClientConfig cfg = new ZKClientConfig();
            cfg.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
            cfg.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
            cfg.setProperty("zookeeper.ssl.keyStore.location", m.clientKeyStore().toString());
            cfg.setProperty("zookeeper.ssl.keyStore.password", TlsMaterial.PASSWORD);
            cfg.setProperty("zookeeper.ssl.trustStore.location", m.trustStore().toString());
            cfg.setProperty("zookeeper.ssl.trustStore.password", TlsMaterial.PASSWORD);
            CountDownLatch connected = new CountDownLatch(1);
            ZooKeeper zk = new ZooKeeper(e.connectString(), 10_000, ev -> {
                if (ev.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            }, cfg);
            try {
                assertTrue(connected.await(30, TimeUnit.SECONDS), "connected over TLS");
                zk.create("/over-tls", "t".getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                assertArrayEquals("t".getBytes(), zk.getData("/over-tls", false, null));
                List<ClientInfo> ids = zk.whoAmI();
                assertTrue(ids.stream().anyMatch(i -> i.getAuthScheme().equals("x509")
                        && i.getUser().equals(TlsMaterial.CLIENT_SUBJECT)), ids.toString());
            } finally {
                zk.close();
            }
        }
    }
}
