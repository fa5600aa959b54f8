package dev.zkr.client;

/**
 * The metadata of a znode, with ZooKeeper's meaning of every field.
 *
 * @param czxid          zxid of the transaction that created the node
 * @param mzxid          zxid of the transaction that last modified its data
 * @param pzxid          zxid of the transaction that last changed its children
 * @param ctime          creation time, epoch millis (leader's clock, carried in the txn)
 * @param mtime          last data modification time, epoch millis
 * @param version        number of data changes
 * @param cversion       number of child changes
 * @param aversion       number of ACL changes
 * @param ephemeralOwner owning session id for ephemeral nodes, else 0
 * @param dataLength     length of the data in bytes
 * @param numChildren    number of children
 */
public record Stat(long czxid, long mzxid, long pzxid, long ctime, long mtime,
                   int version, int cversion, int aversion, long ephemeralOwner,
                   int dataLength, int numChildren) {

    /** True if the node is ephemeral. */
    public boolean isEphemeral() {
        return ephemeralOwner != 0;
    }
}
