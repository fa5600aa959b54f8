package dev.zkr.client;

/** The data of a znode and its Stat, read together. */
public record NodeData(byte[] data, Stat stat) {
}
