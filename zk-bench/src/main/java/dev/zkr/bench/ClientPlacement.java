package dev.zkr.bench;

import java.util.List;

/**
 * Which server each client of a scenario connects to: client {@code k} gets {@link #connectString(int)
 * connectString(k)}. Standalone scenarios put every client on the one server; ensemble scenarios pin clients to
 * servers round robin so both systems get the same spread.
 */
@FunctionalInterface
interface ClientPlacement {

    /** The connect string of client {@code k} (0-based). */
    String connectString(int client);

    /** Every client on the same connect string. */
    static ClientPlacement single(String connectString) {
        return client -> connectString;
    }

    /** Client {@code k} on {@code servers.get(k % servers.size())}. */
    static ClientPlacement roundRobin(List<String> servers) {
        List<String> copy = List.copyOf(servers);
        return client -> copy.get(client % copy.size());
    }
}
