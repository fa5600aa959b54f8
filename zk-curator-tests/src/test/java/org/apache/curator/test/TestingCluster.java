package org.apache.curator.test;

import org.apache.zookeeper.ZooKeeper;

import java.io.Closeable;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * zkr's stand-in for curator-test's {@code TestingCluster} (same public API): a replicated zkr ensemble in this JVM,
 * one {@link TestingZooKeeperServer} (this module's, which starts zkr) per {@link InstanceSpec}, each member knowing
 * the members its map entry lists.
 */
public class TestingCluster implements Closeable {

    private final List<TestingZooKeeperServer> servers;

    /** {@code instanceQty} servers on random ports with temporary directories. */
    public TestingCluster(int instanceQty) {
        this(makeSpecs(instanceQty));
    }

    public TestingCluster(InstanceSpec... specs) {
        this(listToMap(List.of(specs)));
    }

    public TestingCluster(Collection<InstanceSpec> specs) {
        this(listToMap(specs));
    }

    /** One server per key, which knows the members of its value as its ensemble. */
    public TestingCluster(Map<InstanceSpec, Collection<InstanceSpec>> specs) {
        List<TestingZooKeeperServer> list = new ArrayList<>();
        for (Map.Entry<InstanceSpec, Collection<InstanceSpec>> e : specs.entrySet()) {
            List<InstanceSpec> members = new ArrayList<>(e.getValue());
            int index = members.indexOf(e.getKey());
            if (index < 0) {
                throw new IllegalStateException(e.getKey() + " not found in specs");
            }
            list.add(new TestingZooKeeperServer(new QuorumConfigBuilder(members), index));
        }
        this.servers = List.copyOf(list);
    }

    public Collection<InstanceSpec> getInstances() {
        return servers.stream().map(TestingZooKeeperServer::getInstanceSpec).collect(Collectors.toList());
    }

    public List<TestingZooKeeperServer> getServers() {
        return new ArrayList<>(servers);
    }

    /** {@code host:port,...} of every member. */
    public String getConnectString() {
        return getInstances().stream().map(InstanceSpec::getConnectString).collect(Collectors.joining(","));
    }

    /** Starts every member (they elect a leader among themselves). */
    public void start() throws Exception {
        for (TestingZooKeeperServer s : servers) {
            s.start();
        }
    }

    /** Stops every member, keeping their data. */
    public void stop() throws IOException {
        for (TestingZooKeeperServer s : servers) {
            s.stop();
        }
    }

    /** Stops every member and deletes the data directories their specs say to delete. */
    @Override
    public void close() throws IOException {
        for (TestingZooKeeperServer s : servers) {
            s.close();
        }
    }

    /** Kills (a crash) the member of {@code instance}; false if none is. */
    public boolean killServer(InstanceSpec instance) throws Exception {
        for (TestingZooKeeperServer s : servers) {
            if (s.getInstanceSpec().equals(instance)) {
                s.kill();
                return true;
            }
        }
        return false;
    }

    /** Restarts the member of {@code instance}; false if none is. */
    public boolean restartServer(InstanceSpec instance) throws Exception {
        for (TestingZooKeeperServer s : servers) {
            if (s.getInstanceSpec().equals(instance)) {
                s.restart();
                return true;
            }
        }
        return false;
    }

    /** The member the ZooKeeper client is connected to (by its remote port), or null. */
    public InstanceSpec findConnectionInstance(ZooKeeper client) throws Exception {
        // the Apache client's own test hook for its current server (as curator-test uses it)
        Method m = ZooKeeper.class.getDeclaredMethod("testableRemoteSocketAddress");
        m.setAccessible(true);
        InetSocketAddress address = (InetSocketAddress) m.invoke(client);
        if (address == null) {
            return null;
        }
        for (TestingZooKeeperServer s : servers) {
            if (s.getInstanceSpec().getPort() == address.getPort()) {
                return s.getInstanceSpec();
            }
        }
        return null;
    }

    public static Map<InstanceSpec, Collection<InstanceSpec>> makeSpecs(int instanceQty) {
        return makeSpecs(instanceQty, true);
    }

    public static Map<InstanceSpec, Collection<InstanceSpec>> makeSpecs(int instanceQty, boolean resetServerIds) {
        if (resetServerIds) {
            InstanceSpec.reset();
        }
        List<InstanceSpec> specs = new ArrayList<>();
        for (int i = 0; i < instanceQty; i++) {
            specs.add(InstanceSpec.newInstanceSpec());
        }
        return listToMap(specs);
    }

    private static Map<InstanceSpec, Collection<InstanceSpec>> listToMap(Collection<InstanceSpec> specs) {
        List<InstanceSpec> members = List.copyOf(specs);
        Map<InstanceSpec, Collection<InstanceSpec>> map = new LinkedHashMap<>();
        for (InstanceSpec s : members) {
            map.put(s, members);
        }
        return map;
    }
}
