package dev.zkr.recipes;

import dev.zkr.client.NodeData;

import java.util.Optional;

/**
 * A change seen by a cache: {@code CREATED}, {@code CHANGED} (data or Stat), {@code DELETED} (data: the last known),
 * or {@code INITIALIZED} (the cache is synchronised with the server: after start, and again after every
 * re-synchronisation that follows a reconnect or a new session; data: the node, if it exists).
 */
public record CacheEvent(Type type, String path, Optional<NodeData> data) {

    public enum Type { CREATED, CHANGED, DELETED, INITIALIZED }
}
