package dev.zkr.samples.mapreduce;

/**
 * What a {@code --kill-server} fault did.
 *
 * @param index      the killed server's index in the embedded ensemble (0-based)
 * @param serverId   its server id
 * @param role       its role when it was killed
 * @param servers    servers in the ensemble
 * @param pauseMillis time from the kill to the master's first acknowledged write after it
 * @param restarted  the server was started again (same data directory and ports) after the pause was measured
 */
public record ServerKillReport(int index, int serverId, ServerKill.Role role, int servers, long pauseMillis,
                               boolean restarted) {
}
