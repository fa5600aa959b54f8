package dev.zkr.cli;

import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code stat PATH}: a node's Stat, in ZooKeeper's CLI layout. */
@Command(name = "stat", mixinStandardHelpOptions = true, description = "Print a node's Stat.")
final class StatCommand extends NodeCommand {

    @Parameters(paramLabel = "PATH", description = "The node.")
    String path;

    @Override
    protected int run(ZkClient client, Output out) {
        Stat s = client.exists(path);
        if (s == null) {
            throw ZkException.of(ZkException.Code.NO_NODE, path);
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("path", path);
        json.put("stat", Formats.statJson(s));
        out.result(json, Formats.statLines(s));
        return ExitCode.OK;
    }
}
