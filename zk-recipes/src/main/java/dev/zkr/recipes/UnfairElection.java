package dev.zkr.recipes;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.NodeData;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Cleanup;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.OwnedNode;
import dev.zkr.recipes.internal.ProtectedNames;
import dev.zkr.recipes.internal.Retries;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Unfair election: everyone races to create the one ephemeral node {@code <path>/leader}; losers watch it and race
 * again when it goes (a herd, the documented price of this mode). Participants register ephemeral nodes under
 * {@code <path>/members} so they can be listed. A create whose response was lost is recognised by the node's
 * ephemeralOwner being our session.
 */
final class UnfairElection implements Election {

    private static final Logger LOG = LoggerFactory.getLogger(UnfairElection.class);
    private static final int RESIGN_ATTEMPTS = 20;

    private final ZkClient client;
    private final String leaderPath;
    private final String membersPath;
    private final String memberPath;
    private final byte[] id;
    private volatile long memberSession;

    UnfairElection(ZkClient client, String path, String id) {
        this.client = client;
        this.leaderPath = ZkPaths.join(path, "leader");
        this.membersPath = ZkPaths.join(path, "members");
        this.memberPath = ZkPaths.join(membersPath, "m-" + UUID.randomUUID());
        this.id = id.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public OwnedNode elect(OwnedNode previous, Predicate<OwnedNode> early) {
        while (true) {
            try {
                ensureMember();
                if (previous != null && previous.owner() == client.sessionId()) {
                    NodeData d = client.getData(leaderPath);
                    if (d.stat().ephemeralOwner() == client.sessionId()) {
                        return previous;
                    }
                }
                previous = null;
                Created c = ProtectedNames.awaitOrAbandon(client,
                        client.createAsync(leaderPath, id, CreateMode.EPHEMERAL, Parents.CONTAINER));
                return new OwnedNode(c.path(), "leader", c.stat().czxid(), c.stat().ephemeralOwner());
            } catch (ZkException.NodeExists e) {
                OwnedNode ours = waitForLeaderToGo();
                if (ours != null) {
                    return ours;
                }
            } catch (ZkException.NoNode e) {
                // the leader went between our calls: race again
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                Retries.recover(client, Deadline.NONE);
            } catch (ZkException.SessionExpired e) {
                Retries.awaitConnected(client, Deadline.NONE);
            }
        }
    }

    /** Watches the leader node until it goes; returns it if it turns out to be ours (lost create response). */
    private OwnedNode waitForLeaderToGo() {
        NodeWatch watch = NodeWatch.open(client, leaderPath);
        try {
            NodeData d = watch.read();
            if (d == null) {
                return null;
            }
            if (d.stat().ephemeralOwner() == client.sessionId()) {
                return new OwnedNode(leaderPath, "leader", d.stat().czxid(), d.stat().ephemeralOwner());
            }
            watch.await(Deadline.NONE);
            return null;
        } finally {
            watch.close();
        }
    }

    private void ensureMember() {
        long session = client.sessionId();
        if (memberSession == session) {
            return;
        }
        try {
            client.create(memberPath, id, CreateMode.EPHEMERAL, Parents.CONTAINER);
        } catch (ZkException.NodeExists e) {
            // ours: a create whose response was lost (an expired session's node is gone before LOST is reported)
        }
        memberSession = session;
    }

    @Override
    public CompletableFuture<Void> resign(OwnedNode node) {
        return resign(node, RESIGN_ATTEMPTS, false);
    }

    /**
     * Deletes our leader node. The name is fixed, so a retry after a lost response must not delete blindly: the
     * first delete may have gone through and another participant may lead by now. A retry therefore deletes only
     * a node our session owns, at the version it read. Never fails.
     */
    private CompletableFuture<Void> resign(OwnedNode node, int attempts, boolean retry) {
        if (client.sessionId() != node.owner()) {
            return CompletableFuture.completedFuture(null); // the session's ephemerals went with it
        }
        CompletableFuture<Void> attempt;
        try {
            attempt = !retry ? client.deleteAsync(node.path(), -1)
                    : client.existsAsync(node.path(), null).thenCompose(stat -> stat != null
                            && stat.ephemeralOwner() == node.owner() && stat.czxid() == node.czxid()
                            ? client.deleteAsync(node.path(), stat.version())
                            : CompletableFuture.completedFuture(null));
        } catch (RuntimeException e) {
            attempt = CompletableFuture.failedFuture(e);
        }
        return attempt.handle((v, err) -> {
            RuntimeException cause = err == null ? null : ClientSupport.unwrap(err);
            if ((cause instanceof ZkException.ConnectionLoss || cause instanceof ZkException.OperationTimeout)
                    && attempts > 1) {
                return Retries.whenConnected(client).thenCompose(x -> resign(node, attempts - 1, true));
            }
            if (cause != null && !(cause instanceof ZkException.NoNode || cause instanceof ZkException.SessionExpired
                    || cause instanceof ZkException.Closed || cause instanceof ZkException.BadVersion)) {
                LOG.warn("could not delete {}: {}", node.path(), cause.toString());
            }
            return CompletableFuture.<Void>completedFuture(null);
        }).thenCompose(f -> f);
    }

    @Override
    public void leave() {
        Cleanup.deleteQuietly(client, memberPath, memberSession);
    }

    @Override
    public List<String> participants() {
        List<String> ids = new ArrayList<>();
        Optional<String> leader = leaderId();
        leader.ifPresent(ids::add);
        List<String> names;
        try {
            names = client.getChildren(membersPath);
        } catch (ZkException.NoNode e) {
            return ids;
        }
        boolean leaderSkipped = false;
        for (String name : names.stream().sorted().toList()) {
            try {
                String pid = new String(client.getData(ZkPaths.join(membersPath, name)).data(), StandardCharsets.UTF_8);
                if (!leaderSkipped && leader.isPresent() && leader.get().equals(pid)) {
                    leaderSkipped = true;
                    continue;
                }
                ids.add(pid);
            } catch (ZkException.NoNode gone) {
                // left meanwhile
            }
        }
        return ids;
    }

    @Override
    public Optional<String> leaderId() {
        try {
            return Optional.of(new String(client.getData(leaderPath).data(), StandardCharsets.UTF_8));
        } catch (ZkException.NoNode e) {
            return Optional.empty();
        }
    }
}
