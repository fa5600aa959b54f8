package dev.zkr.recipes;

import dev.zkr.client.Children;
import dev.zkr.client.ZkClient;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The listings of one lock path through one client, shared by its asynchronous waiters: at most one is in flight;
 * a waiter that needs one {@linkplain #join() joins} the next listing <em>sent after</em> it asked, and one reply
 * (sorted once) serves every waiter that joined it.
 *
 * <p>Why the next one and not the one in flight: the one in flight may have been answered before the waiter's own
 * node was created, or before the node it watched was deleted, and would show it a queue it is not in. A listing
 * sent after the waiter asked is answered after everything the waiter's session sent before (a session's requests
 * are applied in order), so a waiter may join as soon as it has <em>sent</em> its create: the listing behind the
 * create is pipelined, as the blocking acquire pipelines it, and a burst of creates shares one or two listings.
 * Joiners that arrive while one is in flight wait for the next, sent as soon as that one is answered.
 */
final class ListingBatch {

    private final ZkClient client;
    private final String path;
    private List<CompletableFuture<SortedListing>> waiting; // guarded by this: joined the next listing
    private boolean inFlight; // guarded by this

    ListingBatch(ZkClient client, String path) {
        this.client = client;
        this.path = path;
    }

    /**
     * The next listing sent from now on (now, if none is in flight; else as soon as the one in flight is
     * answered). Completes on the thread that completes the reply (usually the client's event thread), or fails
     * as the listing did.
     */
    CompletableFuture<SortedListing> join() {
        CompletableFuture<SortedListing> out = new CompletableFuture<>();
        List<CompletableFuture<SortedListing>> batch = null;
        synchronized (this) {
            if (waiting == null) {
                waiting = new ArrayList<>();
            }
            waiting.add(out);
            if (!inFlight) {
                inFlight = true;
                batch = waiting;
                waiting = null;
            }
        }
        if (batch != null) {
            send(batch);
        }
        return out;
    }

    private void send(List<CompletableFuture<SortedListing>> batch) {
        CompletableFuture<Children> reply;
        try {
            reply = client.getChildrenAsync(path, null);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((children, err) -> {
            List<CompletableFuture<SortedListing>> following;
            synchronized (this) {
                following = waiting;
                waiting = null;
                inFlight = following != null;
            }
            if (following != null) {
                send(following); // those who asked while this one was in flight
            }
            if (err != null) {
                for (CompletableFuture<SortedListing> f : batch) {
                    f.completeExceptionally(err);
                }
                return;
            }
            SortedListing listing = SortedListing.of(children);
            for (CompletableFuture<SortedListing> f : batch) {
                f.complete(listing);
            }
        });
    }
}
