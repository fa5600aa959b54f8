package dev.zkr.migrate;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

import java.util.ArrayDeque;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A whole tree as a ZooKeeper client reads it: path to data (null kept apart from empty), every Stat field and the
 * ACL, without ZooKeeper's own {@code /zookeeper} subtree (the root's Stat, which counts it, is in).
 */
final class TreeDump {
    private TreeDump() {
    }

    static Map<String, String> of(ZooKeeper zk) throws KeeperException, InterruptedException {
        Map<String, String> out = new TreeMap<>();
        ArrayDeque<String> todo = new ArrayDeque<>();
        todo.push("/");
        while (!todo.isEmpty()) {
            String path = todo.pop();
            if (path.equals("/zookeeper")) {
                continue;
            }
            Stat stat = new Stat();
            byte[] data = zk.getData(path, false, stat);
            List<ACL> acl = zk.getACL(path, new Stat());
            out.put(path, (data == null ? "null" : Base64.getEncoder().encodeToString(data)) + " " + str(stat) + " "
                    + acl);
            for (String kid : zk.getChildren(path, false)) {
                todo.push(path.equals("/") ? "/" + kid : path + "/" + kid);
            }
        }
        return out;
    }

    static String str(Stat s) {
        return "czxid=" + Long.toHexString(s.getCzxid()) + " mzxid=" + Long.toHexString(s.getMzxid()) + " pzxid="
                + Long.toHexString(s.getPzxid()) + " ctime=" + s.getCtime() + " mtime=" + s.getMtime() + " version="
                + s.getVersion() + " cversion=" + s.getCversion() + " aversion=" + s.getAversion() + " owner="
                + Long.toHexString(s.getEphemeralOwner()) + " len=" + s.getDataLength() + " kids="
                + s.getNumChildren();
    }
}
