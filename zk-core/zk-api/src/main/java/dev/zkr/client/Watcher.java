package dev.zkr.client;

/**
 * Receives watch events. Events run on the client's single event thread, in the order the server produced
 * them and before the response of any request that reflects the change. Never block in a watcher.
 */
@FunctionalInterface
public interface Watcher {
    void process(WatchedEvent event);
}
