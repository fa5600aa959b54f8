package dev.zkr.apache;

import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

import java.io.IOException;
import java.util.Set;
import java.util.TreeSet;

/** A ZooKeeper handle that tells which paths carry watches (ZooKeeper keeps those lists protected). */
final class WatchableZooKeeper extends ZooKeeper {

    WatchableZooKeeper(String connectString, int sessionTimeoutMs, Watcher defaultWatcher, ZKClientConfig config)
            throws IOException {
        super(connectString, sessionTimeoutMs, defaultWatcher, config);
    }

    /** Paths with a data, exists, child, persistent or persistent-recursive watch. */
    Set<String> watchedPaths() {
        Set<String> paths = new TreeSet<>();
        paths.addAll(getDataWatches());
        paths.addAll(getExistWatches());
        paths.addAll(getChildWatches());
        paths.addAll(getPersistentWatches());
        paths.addAll(getPersistentRecursiveWatches());
        return paths;
    }
}
