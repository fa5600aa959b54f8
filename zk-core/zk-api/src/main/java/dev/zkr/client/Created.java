package dev.zkr.client;

/**
 * The result of a create: the actual path (with the sequence suffix for sequential modes) and the new node's Stat.
 */
public record Created(String path, Stat stat) {
}
