package dev.zkr.apache;

import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A zkr {@link Watcher} seen by ZooKeeper. Equal adapters wrap equal watchers, so ZooKeeper's de-duplication and
 * {@code removeWatches} work on the zkr watcher. ZooKeeper's connection events (type {@code None}) are dropped:
 * zkr reports those to connection state listeners only.
 */
record WatcherAdapter(Watcher delegate) implements org.apache.zookeeper.Watcher {

    private static final Logger LOG = LoggerFactory.getLogger(WatcherAdapter.class);

    @Override
    public void process(org.apache.zookeeper.WatchedEvent event) {
        WatchedEvent.Type type = Convert.eventType(event.getType());
        if (type == null) {
            return;
        }
        try {
            delegate.process(new WatchedEvent(type, event.getPath(), event.getZxid()));
        } catch (RuntimeException e) {
            LOG.warn("Watcher {} failed on {} {}", delegate, type, event.getPath(), e);
        }
    }
}
