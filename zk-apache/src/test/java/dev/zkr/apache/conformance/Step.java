package dev.zkr.apache.conformance;

import dev.zkr.apache.conformance.Args.AclChoice;
import dev.zkr.apache.conformance.Args.Credential;
import dev.zkr.apache.conformance.Args.Data;
import dev.zkr.apache.conformance.Args.PathRef;
import dev.zkr.apache.conformance.Args.Version;
import dev.zkr.client.AddWatchMode;
import dev.zkr.client.Children;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.NodeAcl;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Stat;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * One step of a differential sequence. {@link #run} performs it on one backend and returns its normalised outcome
 * (results, error codes, the Stat fields that must agree; zxids are recorded in the {@link Side} and compared by
 * order). The same step runs on both backends and the outcomes must be equal.
 */
sealed interface Step {

    /**
     * The TTL of TTL nodes made by the generated creates: long enough that none expires within a try (expiry is
     * compared by {@link ExpireTtl}, which waits for it).
     */
    java.time.Duration LONG_TTL = java.time.Duration.ofHours(1);

    String run(Side s, int index);

    /** A create as the mode needs it: a TTL mode gets {@link #LONG_TTL}. */
    private static Created create(ZkClient c, String path, byte[] data, CreateMode mode,
                                  java.util.List<dev.zkr.client.Acl> acls) {
        if (mode.isTtl()) {
            return ClientSupport.await(c.createAsync(path, data, mode, acls, LONG_TTL));
        }
        return ClientSupport.await(acls == null ? c.createAsync(path, data, mode)
                : c.createAsync(path, data, mode, acls));
    }

    /** True if the order of the watch events this step causes is unspecified (compared sorted). */
    default boolean unorderedEvents() {
        return false;
    }

    /**
     * A removal of ANY type delivers one event per kind removed; ZooKeeper's client queues them from a HashMap keyed
     * by event type (enum identity hashes), so their order changes from one JVM to the next.
     */
    private static boolean removesEveryKind(WatcherType type) {
        return type == WatcherType.ANY;
    }

    /** The outcome of a getData: the data and the node's Stat. */
    private static String dataRead(Side s, NodeData d, int index) {
        return Side.data(d.data()) + " " + s.stat(d.stat(), "getData@" + index);
    }

    /** The outcome of a getChildren: the names sorted (their order is unspecified) and the node's Stat. */
    private static String childrenRead(Side s, Children c, int index) {
        return c.names().stream().sorted().toList() + " " + s.stat(c.stat(), "getChildren@" + index);
    }

    // ---- writes -----------------------------------------------------------------------------------------------

    /** Create in any mode, by the main client or by the second session. */
    record Create(String path, Data data, CreateMode mode, boolean byOther) implements Step {
        @Override
        public String run(Side s, int index) {
            ZkClient c = s.client(byOther);
            String r = Side.outcome(() -> {
                Created cr = create(c, s.abs(path), data.bytes(), mode, null);
                s.created(cr.path(), mode);
                if (byOther && mode.isEphemeral()) {
                    s.otherEphemerals.add(cr.path());
                }
                return "created " + s.rel(cr.path()) + " " + s.stat(cr.stat(), "create@" + index);
            });
            return data.big() ? r + stillConnected(s) : r;
        }

        @Override
        public String toString() {
            return "create(" + (path.isEmpty() ? "." : path) + ", " + data + ", " + mode
                    + (byOther ? ", by other session" : "") + ")";
        }
    }

    /**
     * A TTL node of a short TTL (sequential or not) under the try's root, then the wait for the server to delete
     * it (an exists watch, up to 10 s): "expired" with its creation Stat, or "still there".
     */
    record ExpireTtl(String path, CreateMode mode) implements Step {
        @Override
        public String run(Side s, int index) {
            return Side.outcome(() -> {
                Created cr = ClientSupport.await(s.main.createAsync(s.abs(path), new byte[] {1}, mode, null,
                        java.time.Duration.ofMillis(50)));
                s.created(cr.path(), mode);
                java.util.concurrent.CompletableFuture<Void> gone = new java.util.concurrent.CompletableFuture<>();
                if (s.main.exists(cr.path(), e -> {
                    if (e.type() == dev.zkr.client.WatchedEvent.Type.NODE_DELETED) {
                        gone.complete(null);
                    }
                }) == null) {
                    return "created " + s.rel(cr.path()) + ", gone before the watch";
                }
                try {
                    gone.get(10, java.util.concurrent.TimeUnit.SECONDS);
                } catch (Exception e) {
                    return "created " + s.rel(cr.path()) + ", still there";
                }
                return "created " + s.rel(cr.path()) + " " + s.stat(cr.stat(), "createTtl@" + index) + ", expired";
            });
        }

        @Override
        public String toString() {
            return "expireTtl(" + path + ", " + mode + ")";
        }
    }

    record Delete(PathRef path, Version version) implements Step {
        @Override
        public String run(Side s, int index) {
            String p = s.abs(path);
            int v = resolveVersion(s, p, version);
            return Side.outcome(() -> {
                s.main.delete(p, v);
                s.containers.remove(p);
                return "deleted";
            });
        }

        @Override
        public String toString() {
            return "delete(" + path + ", " + version + ")";
        }
    }

    record SetData(PathRef path, Data data, Version version) implements Step {
        @Override
        public String run(Side s, int index) {
            String p = s.abs(path);
            int v = resolveVersion(s, p, version);
            String r = Side.outcome(() -> "set " + s.stat(s.main.setData(p, data.bytes(), v), "set@" + index));
            return data.big() ? r + stillConnected(s) : r;
        }

        @Override
        public String toString() {
            return "setData(" + path + ", " + data + ", " + version + ")";
        }
    }

    /** A multi of 1..4 operations, often with a failing one. */
    record Multi(List<MultiOp> ops) implements Step {
        @Override
        public String run(Side s, int index) {
            List<Op> resolved = new ArrayList<>();
            for (MultiOp op : ops) {
                resolved.add(op.resolve(s));
            }
            return Side.outcome(() -> "ok " + results(s.main.multi(resolved), s, "multi@" + index, resolved));
        }

        @Override
        public String toString() {
            return "multi" + ops;
        }
    }

    /** Closes the second session (its ephemerals go, their watches fire). */
    record CloseOther() implements Step {
        @Override
        public String run(Side s, int index) {
            return s.closeOther() ? "closed" : "no second session";
        }

        /** ZooKeeper deletes a closed session's ephemerals in hash-set order. */
        @Override
        public boolean unorderedEvents() {
            return true;
        }

        @Override
        public String toString() {
            return "closeOtherSession()";
        }
    }

    /** The server expires the second session (its ephemerals go, their watches fire), then its client closes. */
    record ExpireOther() implements Step {
        @Override
        public String run(Side s, int index) {
            return s.expireOther() ? "expired" : "no second session";
        }

        /** ZooKeeper deletes an expired session's ephemerals in hash-set order. */
        @Override
        public boolean unorderedEvents() {
            return true;
        }

        @Override
        public String toString() {
            return "expireOtherSession()";
        }
    }

    /** The server stops and starts again on the same data; clients re-attach their sessions and watches. */
    record RestartServer() implements Step {
        @Override
        public String run(Side s, int index) {
            return s.restartServer() ? "restarted, sessions kept" : "restarted, a session was lost";
        }

        @Override
        public String toString() {
            return "restartServer()";
        }
    }

    // ---- reads and watches ------------------------------------------------------------------------------------

    record GetData(PathRef path, int watcher) implements Step {
        @Override
        public String run(Side s, int index) {
            return Side.outcome(() -> {
                return dataRead(s, s.main.getData(s.abs(path), s.watcher(watcher)), index);
            });
        }

        @Override
        public String toString() {
            return "getData(" + path + watcherSuffix(watcher) + ")";
        }
    }

    record Exists(PathRef path, int watcher) implements Step {
        @Override
        public String run(Side s, int index) {
            return Side.outcome(() -> s.stat(s.main.exists(s.abs(path), s.watcher(watcher)), "exists@" + index));
        }

        @Override
        public String toString() {
            return "exists(" + path + watcherSuffix(watcher) + ")";
        }
    }

    record GetChildren(PathRef path, int watcher) implements Step {
        @Override
        public String run(Side s, int index) {
            return Side.outcome(() -> {
                return childrenRead(s, s.main.getChildrenWithStat(s.abs(path), s.watcher(watcher)), index);
            });
        }

        @Override
        public String toString() {
            return "getChildren(" + path + watcherSuffix(watcher) + ")";
        }
    }

    record AddWatch(PathRef path, AddWatchMode mode, int watcher) implements Step {
        @Override
        public String run(Side s, int index) {
            return Side.outcome(() -> {
                s.main.addWatch(s.abs(path), mode, s.watcher(watcher));
                return "watching";
            });
        }

        @Override
        public String toString() {
            return "addWatch(" + path + ", " + mode + ", w" + watcher + ")";
        }
    }

    record RemoveWatches(PathRef path, WatcherType type, int watcher) implements Step {
        @Override
        public String run(Side s, int index) {
            return Side.outcome(() -> {
                s.main.removeWatches(s.abs(path), s.watcher(watcher), type, false);
                return "removed";
            });
        }

        @Override
        public boolean unorderedEvents() {
            return removesEveryKind(type);
        }

        @Override
        public String toString() {
            return "removeWatches(" + path + ", " + type + ", w" + watcher + ")";
        }
    }

    /**
     * A watching read sent, then (without waiting for its answer) the removal of another watcher's watches of the
     * path: the server serves the read first, so its watch must survive the removal on both sides. (With the same
     * watcher the backends differ on purpose: zkr removes locally at once, ZooKeeper when the removal is answered.)
     */
    record ReadWhileRemoving(PathRef path, int read, int readWatcher, WatcherType type, int removedWatcher)
            implements Step {
        @Override
        public String run(Side s, int index) {
            String p = s.abs(path);
            ZkClient c = s.main;
            CompletableFuture<String> answer = switch (read) {
                case 0 -> c.existsAsync(p, s.watcher(readWatcher)).thenApply(st -> s.stat(st, "exists@" + index));
                case 1 -> c.getDataAsync(p, s.watcher(readWatcher)).thenApply(d -> dataRead(s, d, index));
                default -> c.getChildrenAsync(p, s.watcher(readWatcher)).thenApply(ch -> childrenRead(s, ch, index));
            };
            CompletableFuture<Void> removal = c.removeWatchesAsync(p, s.watcher(removedWatcher), type, false);
            return Side.outcome(() -> ClientSupport.await(answer)) + "; "
                    + Side.outcome(() -> {
                        ClientSupport.await(removal);
                        return "removed";
                    });
        }

        @Override
        public boolean unorderedEvents() {
            return removesEveryKind(type);
        }

        @Override
        public String toString() {
            return List.of("exists", "getData", "getChildren").get(read) + "(" + path + ", w" + readWatcher
                    + ") while removeWatches(" + type + ", w" + removedWatcher + ")";
        }
    }

    record Sync(PathRef path) implements Step {
        @Override
        public String run(Side s, int index) {
            return Side.outcome(() -> {
                s.main.sync(s.abs(path));
                return "synced";
            });
        }

        @Override
        public String toString() {
            return "sync(" + path + ")";
        }
    }

    /** An operation on an invalid path ({@link Args#INVALID}; those starting with / are put under the root). */
    record Invalid(String path, String op) implements Step {
        @Override
        public String run(Side s, int index) {
            String p = path.startsWith("/") ? s.root + path : path;
            ZkClient c = s.main;
            return Side.outcome(() -> switch (op) {
                case "create" -> "created " + s.rel(c.create(p, new byte[0], CreateMode.PERSISTENT));
                case "createSequential" -> {
                    String made = c.create(p, new byte[0], CreateMode.PERSISTENT_SEQUENTIAL);
                    s.created(made, CreateMode.PERSISTENT_SEQUENTIAL);
                    yield "created " + s.rel(made);
                }
                case "delete" -> {
                    c.delete(p, -1);
                    yield "deleted";
                }
                case "setData" -> "set " + s.stat(c.setData(p, new byte[0], -1), "invalid@" + index);
                case "getData" -> "data " + Side.data(c.getData(p).data());
                case "exists" -> "exists " + (c.exists(p) != null);
                case "getChildren" -> "children " + c.getChildren(p);
                case "multi" -> "ok " + c.multi(List.of(Op.check(p, -1))).size();
                default -> throw new IllegalArgumentException(op);
            });
        }

        @Override
        public String toString() {
            return op + "(\"" + Args.printable(path) + "\")";
        }
    }

    // ---- ACLs and authentication ------------------------------------------------------------------------------

    /** Create with one of the {@link AclChoice}s, by the main client or by the second session. */
    record CreateWithAcl(String path, Data data, CreateMode mode, AclChoice acl, boolean byOther) implements Step {
        @Override
        public String run(Side s, int index) {
            ZkClient c = s.client(byOther);
            return Side.outcome(() -> {
                Created cr = create(c, s.abs(path), data.bytes(), mode, acl.acls());
                s.created(cr.path(), mode);
                if (byOther && mode.isEphemeral()) {
                    s.otherEphemerals.add(cr.path());
                }
                return "created " + s.rel(cr.path()) + " " + s.stat(cr.stat(), "createAcl@" + index);
            });
        }

        @Override
        public String toString() {
            return "create(" + (path.isEmpty() ? "." : path) + ", " + data + ", " + mode + ", " + acl
                    + (byOther ? ", by other session" : "") + ")";
        }
    }

    /** setAcl by the main client or the second session; the version is compared with the node's aversion. */
    record SetAcl(PathRef path, AclChoice acl, Version version, boolean byOther) implements Step {
        @Override
        public String run(Side s, int index) {
            String p = s.abs(path);
            int v = resolveAversion(s, p, version);
            ZkClient c = s.client(byOther);
            return Side.outcome(() -> "setAcl " + s.stat(c.setAcl(p, acl.acls(), v), "setAcl@" + index));
        }

        @Override
        public String toString() {
            return "setAcl(" + path + ", " + acl + ", aversion " + version + (byOther ? ", by other session" : "")
                    + ")";
        }
    }

    /**
     * getAcl by the main client or the second session: the ACL (digests masked without ADMIN; in order but for
     * {@link Side#acl}'s exception) and the node's Stat.
     */
    record GetAcl(PathRef path, boolean byOther) implements Step {
        @Override
        public String run(Side s, int index) {
            ZkClient c = s.client(byOther);
            return Side.outcome(() -> {
                NodeAcl a = c.getAcl(s.abs(path));
                return Side.acl(a.acls()) + " " + s.stat(a.stat(), "getAcl@" + index);
            });
        }

        @Override
        public String toString() {
            return "getAcl(" + path + (byOther ? ", by other session" : "") + ")";
        }
    }

    /**
     * Digest authentication of the main client or of the second session (which it opens if needed), then a sync
     * on that client: ZooKeeper's addAuthInfo is only queued, the sync's answer shows the server has applied it.
     */
    record AddAuth(boolean byOther, Credential credential) implements Step {
        @Override
        public String run(Side s, int index) {
            ZkClient c = s.client(byOther);
            return Side.outcome(() -> {
                c.addAuthInfo("digest", credential.bytes());
                c.sync(s.root);
                return "authenticated";
            });
        }

        @Override
        public String toString() {
            return "addAuth(" + credential + (byOther ? ", other session" : ", main") + ")";
        }
    }

    // ---- ZooKeeper 3.6+ reads ---------------------------------------------------------------------------------

    /**
     * getEphemerals of the main client or the second session, with a prefix under the root (a plain string prefix:
     * {@code a} also matches {@code ab}); the paths sorted, relative to the root.
     */
    record GetEphemerals(PathRef prefix, boolean byOther) implements Step {
        @Override
        public String run(Side s, int index) {
            ZkClient c = s.client(byOther);
            return Side.outcome(() -> "ephemerals " + c.getEphemerals(s.abs(prefix)).stream().map(s::rel).sorted()
                    .toList());
        }

        @Override
        public String toString() {
            return "getEphemerals(" + prefix + (byOther ? ", other session" : "") + ")";
        }
    }

    /** getAllChildrenNumber: every descendant, READ checked. */
    record AllChildrenNumber(PathRef path, boolean byOther) implements Step {
        @Override
        public String run(Side s, int index) {
            ZkClient c = s.client(byOther);
            return Side.outcome(() -> "descendants " + c.getAllChildrenNumber(s.abs(path)));
        }

        @Override
        public String toString() {
            return "getAllChildrenNumber(" + path + (byOther ? ", other session" : "") + ")";
        }
    }

    /**
     * whoAmI: the connection's ids, sorted (ZooKeeper keeps them in a hash set, zkr in the order gained: the
     * order is not compared).
     */
    record WhoAmI(boolean byOther) implements Step {
        @Override
        public String run(Side s, int index) {
            ZkClient c = s.client(byOther);
            return Side.outcome(() -> "ids " + c.whoAmI().stream().map(i -> i.authScheme() + ":" + i.user())
                    .sorted().toList());
        }

        @Override
        public String toString() {
            return "whoAmI(" + (byOther ? "other session" : "main") + ")";
        }
    }

    /** multiRead of getData and getChildren ops ({@code children[i]}): each op's outcome alone. */
    record MultiRead(List<PathRef> paths, List<Boolean> children) implements Step {
        @Override
        public String run(Side s, int index) {
            return Side.outcome(() -> {
                List<Op> ops = new ArrayList<>();
                for (int i = 0; i < paths.size(); i++) {
                    String p = s.abs(paths.get(i));
                    ops.add(children.get(i) ? Op.getChildren(p) : Op.getData(p));
                }
                List<String> out = new ArrayList<>();
                for (OpResult r : s.main.multiRead(ops)) {
                    if (r instanceof OpResult.GetDataResult d) {
                        out.add(Side.data(d.data()) + " " + s.stat(d.stat(), "multiRead@" + index));
                    } else if (r instanceof OpResult.GetChildrenResult c) {
                        out.add(c.children().stream().sorted().toList().toString());
                    } else {
                        out.add("error " + ((OpResult.ErrorResult) r).code());
                    }
                }
                return "read " + out;
            });
        }

        @Override
        public String toString() {
            List<String> ops = new ArrayList<>();
            for (int i = 0; i < paths.size(); i++) {
                ops.add((children.get(i) ? "getChildren " : "getData ") + paths.get(i));
            }
            return "multiRead(" + ops + ")";
        }
    }

    // ---- multi operations -------------------------------------------------------------------------------------

    /** One operation of a {@link Multi}, resolved against a side (paths, current versions) before the multi runs. */
    sealed interface MultiOp {
        Op resolve(Side s);

        record MCreate(String path, Data data, CreateMode mode) implements MultiOp {
            @Override
            public Op resolve(Side s) {
                return mode.isTtl() ? Op.create(s.abs(path), data.bytes(), mode, null, LONG_TTL)
                        : Op.create(s.abs(path), data.bytes(), mode);
            }

            @Override
            public String toString() {
                return "create(" + (path.isEmpty() ? "." : path) + ", " + data + ", " + mode + ")";
            }
        }

        record MCreateAcl(String path, Data data, CreateMode mode, AclChoice acl) implements MultiOp {
            @Override
            public Op resolve(Side s) {
                return mode.isTtl() ? Op.create(s.abs(path), data.bytes(), mode, acl.acls(), LONG_TTL)
                        : Op.create(s.abs(path), data.bytes(), mode, acl.acls());
            }

            @Override
            public String toString() {
                return "create(" + (path.isEmpty() ? "." : path) + ", " + data + ", " + mode + ", " + acl + ")";
            }
        }

        record MDelete(PathRef path, Version version) implements MultiOp {
            @Override
            public Op resolve(Side s) {
                String p = s.abs(path);
                return Op.delete(p, resolveVersion(s, p, version));
            }

            @Override
            public String toString() {
                return "delete(" + path + ", " + version + ")";
            }
        }

        record MSetData(PathRef path, Data data, Version version) implements MultiOp {
            @Override
            public Op resolve(Side s) {
                String p = s.abs(path);
                return Op.setData(p, data.bytes(), resolveVersion(s, p, version));
            }

            @Override
            public String toString() {
                return "setData(" + path + ", " + data + ", " + version + ")";
            }
        }

        record MCheck(PathRef path, Version version) implements MultiOp {
            @Override
            public Op resolve(Side s) {
                String p = s.abs(path);
                return Op.check(p, resolveVersion(s, p, version));
            }

            @Override
            public String toString() {
                return "check(" + path + ", " + version + ")";
            }
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    /**
     * -1, the node's current version (0 if it does not exist), or current + 1. Read by the side's super client, so
     * that the main client's permissions (exists needs READ) do not change what CURRENT means.
     */
    static int resolveVersion(Side s, String path, Version v) {
        return resolve(s, path, v, false);
    }

    /** As {@link #resolveVersion}, for the ACL's version ({@code aversion}). */
    static int resolveAversion(Side s, String path, Version v) {
        return resolve(s, path, v, true);
    }

    private static int resolve(Side s, String path, Version v, boolean aversion) {
        if (v == Version.ANY) {
            return -1;
        }
        Stat st;
        try {
            st = s.admin.exists(path);
        } catch (ZkException e) {
            st = null; // the operation itself reports the problem
        }
        int current = st == null ? 0 : aversion ? st.aversion() : st.version();
        return v == Version.CURRENT ? current : current + 1;
    }

    /** After an oversized request: the session must still serve. */
    static String stillConnected(Side s) {
        return Side.outcome(() -> s.main.exists(s.root) != null ? ", then still connected" : ", then root gone");
    }

    static String watcherSuffix(int watcher) {
        return watcher < 0 ? "" : ", w" + watcher;
    }

    /** Normalised multi results; successful creates are remembered in the side. */
    static String results(List<OpResult> results, Side s, String label, List<Op> ops) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            OpResult r = results.get(i);
            String tag = label + "[" + i + "]";
            if (r instanceof OpResult.CreateResult c) {
                if (ops != null && ops.get(i) instanceof Op.Create oc) {
                    s.created(c.path(), oc.mode());
                }
                out.add("created " + s.rel(c.path()) + " " + s.stat(c.stat(), tag));
            } else if (r instanceof OpResult.SetDataResult sd) {
                out.add("set " + s.stat(sd.stat(), tag));
            } else if (r instanceof OpResult.DeleteResult) {
                out.add("deleted");
            } else if (r instanceof OpResult.CheckResult) {
                out.add("checked");
            } else if (r instanceof OpResult.ErrorResult e) {
                out.add(e.code().name());
            } else {
                out.add("unknown " + r);
            }
        }
        return out.stream().collect(Collectors.joining(", ", "[", "]"));
    }
}
