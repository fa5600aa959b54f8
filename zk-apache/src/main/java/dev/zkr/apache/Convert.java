package dev.zkr.apache;

import dev.zkr.client.AddWatchMode;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkException;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.ZooDefs;

import java.util.ArrayList;
import java.util.List;

/** Translations between zkr's client types and Apache ZooKeeper's. Pure functions. */
final class Convert {

    private Convert() {
    }

    /** zkr ACL entries as ZooKeeper's (same permission bits, schemes and ids). */
    static List<org.apache.zookeeper.data.ACL> acls(List<dev.zkr.client.Acl> acls) {
        List<org.apache.zookeeper.data.ACL> out = new ArrayList<>(acls.size());
        for (dev.zkr.client.Acl a : acls) {
            out.add(new org.apache.zookeeper.data.ACL(a.perms(),
                    new org.apache.zookeeper.data.Id(a.id().scheme(), a.id().id())));
        }
        return out;
    }

    /** ZooKeeper's ACL entries as zkr's. */
    static List<dev.zkr.client.Acl> fromAcls(List<org.apache.zookeeper.data.ACL> acls) {
        List<dev.zkr.client.Acl> out = new ArrayList<>(acls.size());
        for (org.apache.zookeeper.data.ACL a : acls) {
            out.add(new dev.zkr.client.Acl(a.getPerms(), new dev.zkr.client.Id(a.getId().getScheme(),
                    a.getId().getId())));
        }
        return out;
    }

    static Stat stat(org.apache.zookeeper.data.Stat s) {
        if (s == null) {
            return null;
        }
        return new Stat(s.getCzxid(), s.getMzxid(), s.getPzxid(), s.getCtime(), s.getMtime(),
                s.getVersion(), s.getCversion(), s.getAversion(), s.getEphemeralOwner(),
                s.getDataLength(), s.getNumChildren());
    }

    static org.apache.zookeeper.CreateMode mode(CreateMode mode) {
        return switch (mode) {
            case PERSISTENT -> org.apache.zookeeper.CreateMode.PERSISTENT;
            case EPHEMERAL -> org.apache.zookeeper.CreateMode.EPHEMERAL;
            case PERSISTENT_SEQUENTIAL -> org.apache.zookeeper.CreateMode.PERSISTENT_SEQUENTIAL;
            case EPHEMERAL_SEQUENTIAL -> org.apache.zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL;
            case CONTAINER -> org.apache.zookeeper.CreateMode.CONTAINER;
            case PERSISTENT_WITH_TTL -> org.apache.zookeeper.CreateMode.PERSISTENT_WITH_TTL;
            case PERSISTENT_SEQUENTIAL_WITH_TTL -> org.apache.zookeeper.CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
        };
    }

    static org.apache.zookeeper.AddWatchMode mode(AddWatchMode mode) {
        return switch (mode) {
            case PERSISTENT -> org.apache.zookeeper.AddWatchMode.PERSISTENT;
            case PERSISTENT_RECURSIVE -> org.apache.zookeeper.AddWatchMode.PERSISTENT_RECURSIVE;
        };
    }

    /** ZooKeeper's watcher types for a zkr type: one each, the same kinds. */
    static List<org.apache.zookeeper.Watcher.WatcherType> watcherTypes(WatcherType type) {
        return switch (type) {
            case CHILDREN -> List.of(org.apache.zookeeper.Watcher.WatcherType.Children);
            case DATA -> List.of(org.apache.zookeeper.Watcher.WatcherType.Data);
            case PERSISTENT -> List.of(org.apache.zookeeper.Watcher.WatcherType.Persistent);
            case PERSISTENT_RECURSIVE -> List.of(org.apache.zookeeper.Watcher.WatcherType.PersistentRecursive);
            case ANY -> List.of(org.apache.zookeeper.Watcher.WatcherType.Any);
        };
    }

    /** The zkr event type of a node event; null for ZooKeeper's connection events ({@code None}). */
    static WatchedEvent.Type eventType(EventType type) {
        return switch (type) {
            case None -> null;
            case NodeCreated -> WatchedEvent.Type.NODE_CREATED;
            case NodeDeleted -> WatchedEvent.Type.NODE_DELETED;
            case NodeDataChanged -> WatchedEvent.Type.NODE_DATA_CHANGED;
            case NodeChildrenChanged -> WatchedEvent.Type.NODE_CHILDREN_CHANGED;
            case DataWatchRemoved -> WatchedEvent.Type.DATA_WATCH_REMOVED;
            case ChildWatchRemoved -> WatchedEvent.Type.CHILD_WATCH_REMOVED;
            case PersistentWatchRemoved -> WatchedEvent.Type.PERSISTENT_WATCH_REMOVED;
        };
    }

    /** The zkr code of a ZooKeeper code. Shared codes keep their integer value; the rest map to the nearest kind. */
    static ZkException.Code code(KeeperException.Code code) {
        return switch (code) {
            case OK -> ZkException.Code.OK;
            case SYSTEMERROR, DATAINCONSISTENCY, APIERROR, NOTREADONLY, EPHEMERALONLOCALSESSION, QUOTAEXCEEDED ->
                    ZkException.Code.SYSTEM_ERROR;
            case NEWCONFIGNOQUORUM -> ZkException.Code.NEW_CONFIG_NO_QUORUM;
            case RECONFIGINPROGRESS -> ZkException.Code.RECONFIG_IN_PROGRESS;
            case RUNTIMEINCONSISTENCY -> ZkException.Code.RUNTIME_INCONSISTENCY;
            case CONNECTIONLOSS -> ZkException.Code.CONNECTION_LOSS;
            case MARSHALLINGERROR -> ZkException.Code.MARSHALLING_ERROR;
            case UNIMPLEMENTED -> ZkException.Code.UNIMPLEMENTED;
            case RECONFIGDISABLED -> ZkException.Code.RECONFIG_DISABLED;
            case OPERATIONTIMEOUT -> ZkException.Code.OPERATION_TIMEOUT;
            case BADARGUMENTS, INVALIDCALLBACK -> ZkException.Code.BAD_ARGUMENTS;
            case INVALIDACL -> ZkException.Code.INVALID_ACL;
            case UNKNOWNSESSION, SESSIONEXPIRED -> ZkException.Code.SESSION_EXPIRED;
            case NONODE -> ZkException.Code.NO_NODE;
            case NOAUTH -> ZkException.Code.NO_AUTH;
            case BADVERSION -> ZkException.Code.BAD_VERSION;
            case NOCHILDRENFOREPHEMERALS -> ZkException.Code.NO_CHILDREN_FOR_EPHEMERALS;
            case NODEEXISTS -> ZkException.Code.NODE_EXISTS;
            case NOTEMPTY -> ZkException.Code.NOT_EMPTY;
            case AUTHFAILED, SESSIONCLOSEDREQUIRESASLAUTH -> ZkException.Code.AUTH_FAILED;
            case SESSIONMOVED -> ZkException.Code.SESSION_MOVED;
            case NOWATCHER -> ZkException.Code.NO_WATCHER;
            case REQUESTTIMEOUT -> ZkException.Code.REQUEST_TIMEOUT;
            case THROTTLEDOP -> ZkException.Code.THROTTLED;
        };
    }

    /** The zkr code of a ZooKeeper integer result code; unknown codes are a system error. */
    static ZkException.Code code(int rc) {
        KeeperException.Code code = known(rc);
        return code == null ? ZkException.Code.SYSTEM_ERROR : code(code);
    }

    private static KeeperException.Code known(int rc) {
        try {
            return KeeperException.Code.get(rc);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The typed zkr exception for a failed ZooKeeper result code. */
    static ZkException exception(int rc, String path) {
        ZkException.Code code = code(rc);
        if (code == ZkException.Code.OK) {
            return new ZkException.SystemError(path, "ZooKeeper reported success as an error");
        }
        String message = code.intValue() == rc ? null : "ZooKeeper " + describe(rc);
        return ZkException.of(code, path, message);
    }

    private static String describe(int rc) {
        KeeperException.Code code = known(rc);
        return code == null ? "code " + rc : code.name() + " (" + rc + ")";
    }

    /** The ZooKeeper operations of a zkr multi; data already checked. */
    static List<org.apache.zookeeper.Op> ops(List<Op> ops) {
        List<org.apache.zookeeper.Op> out = new ArrayList<>(ops.size());
        for (Op op : ops) {
            out.add(op(op));
        }
        return out;
    }

    private static org.apache.zookeeper.Op op(Op op) {
        if (op instanceof Op.Create c) {
            CreateOptions.Builder b = CreateOptions.newBuilder(c.acls() == null ? ZooDefs.Ids.OPEN_ACL_UNSAFE
                    : acls(c.acls()), mode(c.mode()));
            if (c.mode().isTtl()) {
                b.withTtl(c.ttlMs());
            }
            CreateOptions options = b.build();
            return org.apache.zookeeper.Op.create(c.path(), nonNull(c.data()), options);
        } else if (op instanceof Op.Delete d) {
            return org.apache.zookeeper.Op.delete(d.path(), d.version());
        } else if (op instanceof Op.SetData s) {
            return org.apache.zookeeper.Op.setData(s.path(), nonNull(s.data()), s.version());
        } else if (op instanceof Op.Check k) {
            return org.apache.zookeeper.Op.check(k.path(), k.version());
        } else if (op instanceof Op.GetData g) {
            return org.apache.zookeeper.Op.getData(g.path());
        } else if (op instanceof Op.GetChildren g) {
            return org.apache.zookeeper.Op.getChildren(g.path());
        }
        throw new ZkException.BadArguments(op.path(), "unknown operation " + op);
    }

    /** zkr results of a successful (or failed, then all ErrorResults) ZooKeeper multi. */
    static List<OpResult> results(List<org.apache.zookeeper.OpResult> results) {
        List<OpResult> out = new ArrayList<>(results.size());
        for (org.apache.zookeeper.OpResult r : results) {
            out.add(result(r));
        }
        return out;
    }

    private static OpResult result(org.apache.zookeeper.OpResult r) {
        if (r instanceof org.apache.zookeeper.OpResult.CreateResult c) {
            return new OpResult.CreateResult(c.getPath(), stat(c.getStat()));
        } else if (r instanceof org.apache.zookeeper.OpResult.DeleteResult) {
            return new OpResult.DeleteResult();
        } else if (r instanceof org.apache.zookeeper.OpResult.SetDataResult s) {
            return new OpResult.SetDataResult(stat(s.getStat()));
        } else if (r instanceof org.apache.zookeeper.OpResult.CheckResult) {
            return new OpResult.CheckResult();
        } else if (r instanceof org.apache.zookeeper.OpResult.ErrorResult e) {
            return new OpResult.ErrorResult(code(e.getErr()));
        } else if (r instanceof org.apache.zookeeper.OpResult.GetDataResult d) {
            return new OpResult.GetDataResult(nonNull(d.getData()), stat(d.getStat()));
        } else if (r instanceof org.apache.zookeeper.OpResult.GetChildrenResult c) {
            return new OpResult.GetChildrenResult(c.getChildren());
        }
        throw new ZkException.SystemError(null, "unexpected multi result " + r);
    }

    static byte[] nonNull(byte[] data) {
        return data == null ? new byte[0] : data;
    }
}
