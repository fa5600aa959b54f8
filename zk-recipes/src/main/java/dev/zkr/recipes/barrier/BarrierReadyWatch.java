package dev.zkr.recipes.barrier;

import dev.zkr.client.NodeData;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Signal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One leave's watch on {@code ready}: registered again (the same watcher: still one watch) on every look,
 * kept across them, removed when the leave ends if it never fired. It fires when ready goes: everyone has left.
 */
final class BarrierReadyWatch implements Watcher {
    private final BarrierMember member;
    final AtomicBoolean gone = new AtomicBoolean();
    /** The current look's signal, woken when the watch fires. */
    volatile Signal signal;
    /** The last read found ready: the watch is registered. */
    volatile boolean set;
    /** The last look's watched read of ready. */
    volatile CompletableFuture<NodeData> read;

    BarrierReadyWatch(BarrierMember member) {
        this.member = member;
    }

    @Override
    public void process(WatchedEvent e) {
        set = false;
        if (e.type() == WatchedEvent.Type.NODE_DELETED) {
            gone.set(true);
        }
        Signal s = signal;
        if (s != null) {
            s.fire();
        }
    }

    void remove() {
        if (gone.get()) {
            return;
        }
        CompletableFuture<NodeData> last = read;
        if (last != null && !last.isDone()) {
            // an interrupted look: the read registers its watch later
            member.removeWhenRead(last, member.readyPath, this);
        } else if (set) {
            Cleanup.removeWatchQuietly(member.client, member.readyPath, this, WatcherType.DATA);
        }
    }
}
