package dev.zkr.recipes;

import dev.zkr.client.NodeData;

import java.util.Optional;

/**
 * A change seen by a cache: {@code CREATED}, {@code CHANGED} (node cache: data or Stat; tree cache: data, i.e. a new
 * mzxid), {@code DELETED} (data: the last known; a tree cache whose bound evicted it gives the last Stat with an
 * empty array), or {@code INITIALIZED} (the cache is synchronised with the server: after start, and again after
 * every re-synchronisation that follows a reconnect or a new session; path: the cache's root; data: the root node,
 * if it exists). {@code path} is the node that changed.
 */
public record CacheEvent(Type type, String path, Optional<NodeData> data) {

    public enum Type { CREATED, CHANGED, DELETED, INITIALIZED }
}
