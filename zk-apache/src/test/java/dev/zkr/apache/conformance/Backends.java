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
 * The two servers compared: a zkr server from the test kit and an embedded Apache ZooKeeper, both on loopback with
 * fsync on, containers checked every 100 ms, the same super user ({@link #SUPER}) on both. Started once per test
 * class; every try uses its own root.
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

    private ZkClient zkrAdmin;
    private ZkClient zooKeeperAdmin;

    private Backends(TestEnsemble zkr, EmbeddedZooKeeper zooKeeper) {
        this.zkr = zkr;
        this.zooKeeper = zooKeeper;
    }

    static Backends start() {
        if (System.getProperty(ZOOKEEPER_SUPER_DIGEST_PROPERTY) == null) {
            System.setProperty(ZOOKEEPER_SUPER_DIGEST_PROPERTY, SUPER_DIGEST);
        }
        TestEnsemble zkr = TestEnsemble.builder().servers(1)
                .configure(c -> c.containerCheckInterval(Duration.ofMillis(100)).superDigest(SUPER_DIGEST))
                .start();
        Backends b;
        try {
            b = new Backends(zkr, EmbeddedZooKeeper.start());
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

    /** A new native client of the zkr server. */
    ZkClient zkrClient() {
        return ZkClient.builder().connectString(zkr.connectString()).sessionTimeout(SESSION)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** A new native client of the zkr server, authenticated as the super user. */
    ZkClient zkrAdminClient() {
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

            @Override
            public void restart() {
                zkr.stop(0);
                zkr.restart(0);
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
