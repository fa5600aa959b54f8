package dev.zkr.recipes;

/**
 * A node this client created: its full path, its name, its czxid (the fencing token) and the session that owns it.
 */
record OwnedNode(String path, String name, long czxid, long owner) {
}
