package dev.zkr.cli;

import dev.zkr.client.ZkClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code delete [-v version] PATH}: deletes a node without children. */
@Command(name = "delete", mixinStandardHelpOptions = true,
        description = "Delete a node that has no children (only at the given version with -v).")
final class DeleteCommand extends NodeCommand {

    @Option(names = {"-v", "--version"}, paramLabel = "VERSION", defaultValue = "-1",
            description = "Fail unless the node's data version is this (default: any).")
    int version;

    @Parameters(paramLabel = "PATH", description = "The node.")
    String path;

    @Override
    protected int run(ZkClient client, Output out) {
        client.delete(path, version);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("path", path);
        json.put("deleted", true);
        out.result(json, List.of());
        return ExitCode.OK;
    }
}
