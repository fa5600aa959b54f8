package dev.zkr.consensus;

/** How a leader brings a follower to its log (docs/replication.md, Sync). */
public enum SyncMode {
    /** The follower's log is a prefix of the leader's: entries after it follow. */
    DIFF,
    /** The follower's log diverges after the sync zxid: it truncates after it, then entries follow. */
    TRUNC,
    /** The common prefix is purged from the leader's log: the follower installs snapshot z, then entries follow. */
    SNAP
}
