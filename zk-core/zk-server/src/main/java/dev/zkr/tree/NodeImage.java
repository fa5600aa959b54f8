package dev.zkr.tree;

import dev.zkr.client.Acl;

import java.util.List;

/**
 * One node of a tree as a whole, for moving trees between zkr and other stores (the ZooKeeper import and export):
 * path, data (may be null), ACL and every Stat field, the container flag and a TTL node's TTL. {@code cversion} is the
 * number of child creations, the counter both zkr and ZooKeeper
 * keep (ZooKeeper's {@code StatPersisted.cversion}; the Stat a client reads shows {@code 2 * cversion - numChildren},
 * creations plus deletions), {@code ephemeralOwner} a session id or 0 (containers and TTL nodes have 0 and say what they are in {@code container} and
 * {@code ttlMs}).
 *
 * @param path           absolute path
 * @param data           the data, or null
 * @param acls           the ACL
 * @param czxid          the zxid of the create
 * @param mzxid          the zxid of the last setData (or create)
 * @param pzxid          the zxid of the last child change
 * @param ctime          the create time (ms)
 * @param mtime          the last modification time (ms)
 * @param version        data version
 * @param cversion       number of child creations (not the client-visible value)
 * @param aversion       ACL version
 * @param ephemeralOwner owning session id, 0 for persistent nodes
 * @param container      a container node
 * @param ttlMs          the TTL of a TTL node, 0 for every other node
 */
public record NodeImage(String path, byte[] data, List<Acl> acls, long czxid, long mzxid, long pzxid, long ctime,
                        long mtime, int version, int cversion, int aversion, long ephemeralOwner, boolean container,
                        long ttlMs) {
}
