package dev.zkr.server.zookeeper;

import org.apache.jute.Record;

/**
 * A ZooKeeper request sent on to the server, as its reply will need it: the xid and opcode (the reply's record
 * depends on the opcode: create answers the path, create2 the path and Stat), the path of a sync (echoed), the
 * op types of a multi, and the answer the translator decided itself, if it did.
 *
 * @param opTypes the multi's op types in order (null for other requests)
 * @param answer  the translator's own answer (the server got a ping in its place, to keep the reply order), or null
 */
record Pending(int xid, int opcode, String path, int[] opTypes, Answer answer) {

    Pending(int xid, int opcode) {
        this(xid, opcode, null, null, null);
    }

    /**
     * A reply the translator decides, sent in its turn among the server's replies.
     *
     * @param err   ZooKeeper's error code
     * @param body  the record after the header, or null
     * @param zxid  the header's zxid, or {@link #SERVER_ZXID} for the server's (its reply to the stand-in ping)
     * @param close whether ZooKeeper closes the connection after it
     */
    record Answer(int err, Record body, long zxid, boolean close) {

        static final long SERVER_ZXID = Long.MIN_VALUE;

        /** An error answered as ZooKeeper's request pipeline answers it (the server's zxid, connection kept). */
        static Answer error(int err) {
            return new Answer(err, null, SERVER_ZXID, false);
        }
    }
}
