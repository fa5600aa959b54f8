package dev.zkr.client;

/** Kinds of persistent watches set by {@link ZkClient#addWatch}. */
public enum AddWatchMode {
    /** Data and child events of the node itself; stays until removed. */
    PERSISTENT,
    /** Created/deleted/data-changed events of the node and every descendant; no child events. */
    PERSISTENT_RECURSIVE
}
