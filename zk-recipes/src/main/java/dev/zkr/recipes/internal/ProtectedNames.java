package dev.zkr.recipes.internal;

import dev.zkr.client.Children;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.NodeData;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Protected sequential nodes, named {@code _c_<uuid>-<base><sequence>}: a create whose response is lost is found
 * again by its per-attempt UUID, so it never leaves an orphan that blocks others. On a client with exactly-once writes
 * ({@link ZkClient#exactlyOnceWrites()}) a create's response is not lost while the session lives, so the look-up
 * runs only after an {@code OperationTimeout} (a request timeout shorter than an outage); the name stays, as other
 * recipes and Curator's layout parse it.
 */
public final class ProtectedNames {

    static final String PREFIX = "_c_";
    private static final int UUID_LENGTH = 36;

    private ProtectedNames() {
    }

    /** A fresh protected prefix, {@code _c_<uuid>-}: one per acquire, kept across its create attempts. */
    public static String newPrefix() {
        return PREFIX + UUID.randomUUID() + "-";
    }

    /** The base of a protected name ({@code lock-}, {@code read-}, ...) without the UUID and sequence. */
    public static String base(String name) {
        String rest = name;
        if (name.startsWith(PREFIX) && name.length() > PREFIX.length() + UUID_LENGTH + 1) {
            rest = name.substring(PREFIX.length() + UUID_LENGTH + 1);
        }
        int n = rest.length() - ZkPaths.SEQUENCE_DIGITS;
        return n >= 0 ? rest.substring(0, n) : rest;
    }

    /** Sorts sequential names by their sequence number, dropping names that are not sequential. */
    public static List<String> sortBySequence(List<String> names) {
        List<String> out = new ArrayList<>(names.size());
        for (String n : names) {
            if (ZkPaths.sequenceOf(n) >= 0) {
                out.add(n);
            }
        }
        out.sort(Comparator.comparingLong(ZkPaths::sequenceOf));
        return out;
    }

    /**
     * Creates an ephemeral-sequential protected node under {@code parent} (parents as containers). After a
     * ConnectionLoss it {@code sync}s and looks for the node by UUID before trying again (without the sync the
     * look-up may run on a server that does not show the create yet); after session expiry it creates anew.
     * Throws ConnectionLoss if the connection does not come back before the deadline.
     *
     * <p>Only for ephemeral nodes that nobody but their owner deletes while it waits: a node found missing was
     * never made. A create still on its way when the look-up runs (stuck in a stopped server) can still be applied
     * after the second create: that node is this session's and stays until the session ends (the residue Curator's
     * protected mode has too; not fenced here). Queue items are not made here: a consumer may delete one before the producer looks (see the queue's
     * ExactlyOnceOffer).
     */
    public static OwnedNode create(ZkClient client, String parent, String base, byte[] data, Deadline deadline) {
        return create(client, parent, base, data, deadline, null);
    }

    /**
     * As {@link #create(ZkClient, String, String, byte[], Deadline)}; {@code afterSend} (if not null) runs right
     * after the first create request is sent, before its response: a caller can pipeline a request that the
     * server then answers after the create (requests of one client are answered in order).
     */
    public static OwnedNode create(ZkClient client, String parent, String base, byte[] data, Deadline deadline,
                            Runnable afterSend) {
        String uuid = UUID.randomUUID().toString();
        String prefix = PREFIX + uuid + "-";
        String path = ZkPaths.join(parent, prefix + base);
        while (true) {
            try {
                CompletableFuture<Created> sent =
                        client.createAsync(path, data, CreateMode.EPHEMERAL_SEQUENTIAL, Parents.CONTAINER);
                if (afterSend != null) {
                    afterSend.run();
                    afterSend = null;
                }
                Created c = awaitOrAbandon(client, sent);
                return new OwnedNode(c.path(), ZkPaths.name(c.path()), c.stat().czxid(), c.stat().ephemeralOwner());
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                long session = client.sessionId();
                OwnedNode found;
                try {
                    if (!Retries.recover(client, deadline)) {
                        throw e;
                    }
                    found = Retries.retrying(client, deadline, () -> {
                        syncQuietly(client, parent);
                        return find(client, parent, prefix);
                    });
                } catch (RuntimeException gaveUp) {
                    // interrupted or out of time while looking: the lost create may have made a node that nobody
                    // would delete while the session lives, ahead of everyone queued after it
                    abandonLost(client, parent, prefix, session);
                    throw gaveUp;
                }
                if (found != null) {
                    if (found.owner() == client.sessionId()) {
                        return found;
                    }
                    // a node of an expired session: it goes with that session; make a new one
                }
            } catch (ZkException.SessionExpired e) {
                if (!Retries.awaitConnected(client, deadline)) {
                    throw e;
                }
            }
        }
    }

    /**
     * In the background, once connected: deletes the node with this prefix that a lost create of {@code session}
     * may have made (nothing if the session is gone: its ephemerals went with it). Never fails.
     */
    public static void abandonLost(ZkClient client, String parent, String prefix, long session) {
        Retries.whenConnected(client)
                .thenCompose(x -> client.syncAsync(parent).handle((v, err) -> null))
                .thenCompose(x -> client.getChildrenAsync(parent, null))
                .whenComplete((children, err) -> {
                    if (children == null) {
                        return;
                    }
                    for (String name : children.names()) {
                        if (name.startsWith(prefix)) {
                            Cleanup.deleteAsync(client, ZkPaths.join(parent, name), session);
                        }
                    }
                });
    }

    /**
     * Waits for a create of an ephemeral node; if the wait is interrupted, the node the create may still make is
     * deleted when it arrives, so an abandoned create never leaves a node that blocks others.
     */
    public static Created awaitOrAbandon(ZkClient client, CompletableFuture<Created> create) {
        try {
            return ClientSupport.await(create);
        } catch (ZkException.Interrupted e) {
            create.whenComplete((c, err) -> {
                if (c != null) {
                    client.deleteAsync(c.path(), -1);
                }
            });
            throw e;
        }
    }

    /** Reads after this see every write committed before it (a lost create included, unless still on its way). */
    static void syncQuietly(ZkClient client, String path) {
        try {
            client.sync(path);
        } catch (ZkException.NoNode e) {
            // nothing to sync on: the look-up finds nothing either way
        }
    }

    /** The child of parent whose name starts with the prefix, or null. */
    static OwnedNode find(ZkClient client, String parent, String prefix) {
        String name = childWithPrefix(client, parent, prefix);
        if (name == null) {
            return null;
        }
        String path = ZkPaths.join(parent, name);
        try {
            NodeData d = client.getData(path);
            return new OwnedNode(path, name, d.stat().czxid(), d.stat().ephemeralOwner());
        } catch (ZkException.NoNode gone) {
            return null;
        }
    }

    /** The name of parent's first listed child that starts with the prefix; null if none or no parent. */
    private static String childWithPrefix(ZkClient client, String parent, String prefix) {
        Children children;
        try {
            children = ClientSupport.await(client.getChildrenAsync(parent, null));
        } catch (ZkException.NoNode e) {
            return null;
        }
        for (String name : children.names()) {
            if (name.startsWith(prefix)) {
                return name;
            }
        }
        return null;
    }
}
