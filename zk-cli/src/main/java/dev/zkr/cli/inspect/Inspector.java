package dev.zkr.cli.inspect;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.NodeData;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The reads behind recipe inspection: a node, or the children of a node with their data and Stat (the reads
 * pipelined). Nodes that go while being read are left out. The only class of this package that does I/O.
 */
public final class Inspector {

    private final ZkClient client;

    public Inspector(ZkClient client) {
        this.client = client;
    }

    /** Syncs first, so the reads see every write committed before (the session's server may lag the leader). */
    public Inspector synced(String path) {
        client.sync(path);
        return this;
    }

    /** The node, or null if it does not exist. */
    public Znode node(String path) {
        try {
            NodeData d = client.getData(path);
            return new Znode(ZkPaths.name(path), d.data(), d.stat());
        } catch (ZkException.NoNode e) {
            return null;
        }
    }

    /** The node, failing with NoNode if it does not exist. */
    public Znode existing(String path) {
        Znode z = node(path);
        if (z == null) {
            throw ZkException.of(ZkException.Code.NO_NODE, path);
        }
        return z;
    }

    /** The children with data and Stat, in the order listed; fails with NoNode if the node does not exist. */
    public List<Znode> children(String path) {
        List<String> names = client.getChildren(path);
        List<CompletableFuture<NodeData>> reads = new ArrayList<>(names.size());
        for (String name : names) {
            reads.add(client.getDataAsync(ZkPaths.join(path, name), null));
        }
        List<Znode> out = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            try {
                NodeData d = ClientSupport.await(reads.get(i));
                out.add(new Znode(names.get(i), d.data(), d.stat()));
            } catch (ZkException.NoNode gone) {
                // deleted since the listing
            }
        }
        return out;
    }

    /** The children, or null if the node does not exist. */
    public List<Znode> childrenOrNull(String path) {
        try {
            return children(path);
        } catch (ZkException.NoNode e) {
            return null;
        }
    }
}
