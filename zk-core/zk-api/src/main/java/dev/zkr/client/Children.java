package dev.zkr.client;

import java.util.List;

/** The child names of a znode (unordered, as ZooKeeper returns them) and the parent's Stat. */
public record Children(List<String> names, Stat stat) {
}
