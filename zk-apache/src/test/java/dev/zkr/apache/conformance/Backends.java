package dev.zkr.apache.conformance;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.apache.EmbeddedZooKeeper;
import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Perms;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;
import java.util.List;

/**
 * The two servers compared: a zkr server (or ensemble) from the test kit and an embedded Apache ZooKeeper, both on
 * loopback with fsync on, containers checked every 100 ms, the same super user ({@link #SUPER}) on both. Started once
 * per test class; every try uses its own root. ZooKeeper is always driven by {@link ApacheZkClient}; zkr by its native
 * client ({@link #start()}) or by the same {@link ApacheZkClient} over ZooKeeper's protocol
 * ({@link #startApacheClientOnZkr(int)}), which makes three ways of running every step: zkr's client on zkr, Apache's
 * client on ZooKeeper, Apache's client on zkr.
 */
final class Backends implements AutoCloseable {

    private static final Duration SESSION = Duration.ofSeconds(10);

    /**
     * ZooKeeper reads its super user's digest once, when DigestAuthenticationProvider loads, from this system
     * property; zk-apache's surefire configuration sets it for the whole test JVM (other tests may load the class
     * first), {@link #start} sets it too for runs outside Maven.
     */
    static final String ZOOKEEPER_SUPER_DIGEST_PROPERTY = "zookeeper.DigestAuthenticationProvider.superDigest";
    /** The super user's credentials; the {@link Side}s' admin clients authenticate with them. */
    static final byte[] SUPER = Args.Credential.SUPER.bytes();
    static final String SUPER_DIGEST = Args.Credential.SUPER.id().id();

    private final TestEnsemble zkr;
    private final EmbeddedZooKeeper zooKeeper;
    /** Whether zkr is driven by {@link ApacheZkClient} (ZooKeeper's protocol) rather than zkr's native client. */
    private final boolean apacheClientOnZkr;

    private ZkClient zkrAdmin;
    private ZkClient zooKeeperAdmin;

    private Backends(TestEnsemble zkr, EmbeddedZooKeeper zooKeeper, boolean apacheClientOnZkr) {
        this.zkr = zkr;
        this.zooKeeper = zooKeeper;
        this.apacheClientOnZkr = apacheClientOnZkr;
    }

    /** zkr's native client on one zkr server, beside Apache's client on ZooKeeper. */
    static Backends start() {
        return start(1, false);
    }

    /**
     * Apache's client ({@link ApacheZkClient}, ZooKeeper's protocol) on a zkr server or ensemble of {@code servers}
     * (clients spread over its members, so requests reach followers and the leader), beside the same client on
     * ZooKeeper.
     */
    static Backends startApacheClientOnZkr(int servers) {
        return start(servers, true);
    }

    private static Backends start(int servers, boolean apacheClientOnZkr) {
        if (System.getProperty(ZOOKEEPER_SUPER_DIGEST_PROPERTY) == null) {
            System.setProperty(ZOOKEEPER_SUPER_DIGEST_PROPERTY, SUPER_DIGEST);
        }
        TestEnsemble zkr = TestEnsemble.builder().servers(servers)
                .configure(c -> c.containerCheckInterval(Duration.ofMillis(100)).superDigest(SUPER_DIGEST))
                .start();
        Backends b;
        try {
            b = new Backends(zkr, EmbeddedZooKeeper.start(), apacheClientOnZkr);
        } catch (RuntimeException e) {
            zkr.close();
            throw e;
        }
        try {
            b.zkrAdmin = b.zkrAdminClient();
            b.zooKeeperAdmin = b.zooKeeperAdminClient();
            b.checkSuperUser(b.zkrClient(), b.zkrAdmin, "zkr");
            b.checkSuperUser(b.zooKeeperClient(), b.zooKeeperAdmin, "zookeeper");
            return b;
        } catch (RuntimeException | Error e) {
            b.close();
            throw e;
        }
    }

    /** The admin client must read a node nobody else may read: fail at once rather than in some try's dump. */
    private void checkSuperUser(ZkClient plain, ZkClient admin, String name) {
        String probe = "/super-probe";
        try (plain) {
            plain.create(probe, new byte[0], CreateMode.PERSISTENT,
                    List.of(new Acl(Perms.ALL, Acls.digest("nobody", "none"))));
            try {
                admin.getData(probe);
                admin.delete(probe, -1);
            } catch (ZkException.NoAuth e) {
                throw new IllegalStateException(name + ": the super user is refused; is "
                        + ZOOKEEPER_SUPER_DIGEST_PROPERTY + " set to " + SUPER_DIGEST
                        + " before ZooKeeper's DigestAuthenticationProvider loads?", e);
            }
        }
    }

    /** The name of the zkr side in histories and failures. */
    String zkrName() {
        return apacheClientOnZkr ? "apache-client-on-zkr" : "zkr";
    }

    /** A new client of the zkr server: native, or Apache's over ZooKeeper's protocol. */
    ZkClient zkrClient() {
        if (apacheClientOnZkr) {
            return ApacheZkClient.builder().connectString(zkr.connectString()).sessionTimeout(SESSION)
                    .connectTimeout(Duration.ofSeconds(10)).build();
        }
        return ZkClient.builder().connectString(zkr.connectString()).sessionTimeout(SESSION)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** A new client of the zkr server (as {@link #zkrClient()}), authenticated as the super user. */
    ZkClient zkrAdminClient() {
        if (apacheClientOnZkr) {
            return ApacheZkClient.builder().connectString(zkr.connectString()).sessionTimeout(SESSION)
                    .connectTimeout(Duration.ofSeconds(10)).authInfo("digest", SUPER).build();
        }
        return ZkClient.builder().connectString(zkr.connectString()).sessionTimeout(SESSION)
                .connectTimeout(Duration.ofSeconds(10)).authInfo("digest", SUPER).build();
    }

    /** A new {@link ApacheZkClient} of the ZooKeeper server. */
    ZkClient zooKeeperClient() {
        return ApacheZkClient.builder().connectString(zooKeeper.connectString()).sessionTimeout(SESSION)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** A new {@link ApacheZkClient} of the ZooKeeper server, authenticated as the super user. */
    ZkClient zooKeeperAdminClient() {
        return ApacheZkClient.builder().connectString(zooKeeper.connectString()).sessionTimeout(SESSION)
                .connectTimeout(Duration.ofSeconds(10)).authInfo("digest", SUPER).build();
    }

    /** One server as a {@link Side} uses it. */
    interface Backend {
        ZkClient newClient();

        /** The backend's client authenticated as the super user, shared by every try (closed with the Backends). */
        ZkClient admin();

        /** Expires a session now, as its timeout would (its ephemerals go, their watches fire). */
        void expire(long sessionId);

        /** Stops the server and starts it again on the same port and data; sessions survive. */
        void restart();
    }

    Backend zkr() {
        return new Backend() {
            @Override
            public ZkClient newClient() {
                return zkrClient();
            }

            @Override
            public ZkClient admin() {
                return zkrAdmin;
            }

            @Override
            public void expire(long sessionId) {
                zkr.expireSession(sessionId);
            }

            /** Every member down, then up again (an ensemble loses quorum meanwhile, as the one server does). */
            @Override
            public void restart() {
                for (int i = 0; i < zkr.size(); i++) {
                    zkr.stop(i);
                }
                for (int i = 0; i < zkr.size(); i++) {
                    zkr.restart(i);
                }
            }
        };
    }

    Backend zooKeeper() {
        return new Backend() {
            @Override
            public ZkClient newClient() {
                return zooKeeperClient();
            }

            @Override
            public ZkClient admin() {
                return zooKeeperAdmin;
            }

            @Override
            public void expire(long sessionId) {
                zooKeeper.expireSession(sessionId);
            }

            @Override
            public void restart() {
                zooKeeper.stop();
                zooKeeper.restart();
            }
        };
    }

    @Override
    public void close() {
        try {
            for (ZkClient admin : new ZkClient[] {zkrAdmin, zooKeeperAdmin}) {
                if (admin != null) {
                    admin.close();
                }
            }
        } finally {
            try {
                zooKeeper.close();
            } finally {
                zkr.close();
            }
        }
    }
}
