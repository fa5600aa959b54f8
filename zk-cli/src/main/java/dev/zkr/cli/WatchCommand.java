package dev.zkr.cli;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * {@code watch [-r] PATH}: prints the node's events as they come, until interrupted (Ctrl-C) or, with
 * {@code -n}, after that many events. A persistent watch (data and child events of the node), or with {@code -r}
 * a persistent recursive one (created, changed, deleted events of the node and every descendant). With
 * {@code --json}, one JSON object a line.
 */
@Command(name = "watch", mixinStandardHelpOptions = true,
        description = "Print the events of a node (-r: of its whole subtree) until interrupted.")
final class WatchCommand extends NodeCommand {

    @Option(names = {"-r", "--recursive"}, description = "Persistent recursive: events of every descendant too.")
    boolean recursive;

    @Option(names = {"-n", "--count"}, paramLabel = "N", defaultValue = "0",
            description = "Stop after N events (default: until interrupted).")
    int count;

    @Parameters(paramLabel = "PATH", description = "The node (it need not exist yet).")
    String path;

    /** An event or a connection change, in the order they happened. */
    private sealed interface Item permits Event, Connection {
    }

    private record Event(WatchedEvent event) implements Item {
    }

    private record Connection(ConnectionState state) implements Item {
    }

    @Override
    protected int run(ZkClient client, Output out) throws InterruptedException {
        BlockingQueue<Item> items = new LinkedBlockingQueue<>();
        Watcher watcher = e -> items.add(new Event(e));
        ConnectionStateListener listener = (c, s) -> items.add(new Connection(s));
        client.addConnectionStateListener(listener);
        client.addWatch(path, recursive ? AddWatchMode.PERSISTENT_RECURSIVE : AddWatchMode.PERSISTENT, watcher);
        out.note("watching " + path + (recursive ? " and below" : "") + " (Ctrl-C to stop)");
        int seen = 0;
        try {
            while (count <= 0 || seen < count) {
                Item item = items.take();
                if (item instanceof Event ev) {
                    if (ev.event().type() == WatchedEvent.Type.PERSISTENT_WATCH_REMOVED) {
                        continue;
                    }
                    seen++;
                    print(out, ev.event());
                } else if (item instanceof Connection c) {
                    switch (c.state()) {
                        case SUSPENDED -> out.note("connection lost: events may be missed until it is back");
                        case RECONNECTED -> out.note("reconnected (same session, watch intact)");
                        case LOST -> throw ZkException.of(ZkException.Code.SESSION_EXPIRED, path,
                                "the session expired and the watch with it");
                        default -> { }
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            client.removeConnectionStateListener(listener);
            stop(client, watcher);
        }
        return ExitCode.OK;
    }

    private void print(Output out, WatchedEvent e) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("type", e.type().name());
        json.put("path", e.path());
        json.put("zxid", e.zxid());
        out.result(json, List.of(e.type().name() + " " + e.path() + " zxid=" + Formats.hex(e.zxid())));
    }

    private void stop(ZkClient client, Watcher watcher) {
        boolean interrupted = Thread.interrupted(); // remove the watch even when Ctrl-C ended the wait
        try {
            client.removeWatches(path, watcher, WatcherType.PERSISTENT, true);
        } catch (ZkException e) {
            // gone with the session, or no connection: nothing left to remove
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
