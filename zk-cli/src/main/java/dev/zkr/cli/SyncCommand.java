package dev.zkr.cli;

import dev.zkr.client.ZkClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code sync PATH}: waits until the server this session talks to has every write committed before the sync
 * (useful in the shell before reading what another client just wrote through another server).
 */
@Command(name = "sync", mixinStandardHelpOptions = true,
        description = "Make this session's server catch up with the leader (reads after it see earlier writes).")
final class SyncCommand extends NodeCommand {

    @Parameters(paramLabel = "PATH", defaultValue = "/", description = "The path (default /).")
    String path;

    @Override
    protected int run(ZkClient client, Output out) {
        client.sync(path);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("path", path);
        json.put("synced", true);
        out.result(json, List.of());
        return ExitCode.OK;
    }
}
