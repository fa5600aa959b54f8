package dev.zkr.cli.inspect;

import dev.zkr.client.Stat;

import java.nio.charset.StandardCharsets;

/**
 * One node as the layout readers see it: its name (not path), data and Stat. The input of every pure reader in
 * this package, so a test can build one without a server.
 */
public record Znode(String name, byte[] data, Stat stat) {

    /** The data as UTF-8 text (recipes store ids and marks as UTF-8). */
    public String text() {
        return new String(data, StandardCharsets.UTF_8);
    }

    /** The session that owns this ephemeral node (0 if persistent). */
    public long session() {
        return stat.ephemeralOwner();
    }
}
