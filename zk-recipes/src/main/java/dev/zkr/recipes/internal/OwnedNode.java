package dev.zkr.recipes.internal;

/**
 * A node this client created: its full path, its name, its czxid (the fencing token) and the session that owns it.
 */
public record OwnedNode(String path, String name, long czxid, long owner) {
}
