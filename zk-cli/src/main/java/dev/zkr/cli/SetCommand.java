package dev.zkr.cli;

import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code set [-v version] PATH DATA}: replaces a node's data, if its version matches when given. */
@Command(name = "set", mixinStandardHelpOptions = true,
        description = "Replace a node's data (only at the given version with -v).")
final class SetCommand extends NodeCommand {

    @Option(names = {"-v", "--version"}, paramLabel = "VERSION", defaultValue = "-1",
            description = "Fail unless the node's data version is this (default: any).")
    int version;

    @Parameters(index = "0", paramLabel = "PATH", description = "The node.")
    String path;

    @Parameters(index = "1", paramLabel = "DATA", description = "The new data (text, or with --hex / --base64).")
    String data;

    @Override
    protected int run(ZkClient client, Output out) {
        byte[] bytes = out.format().decode(data);
        Stat s = client.setData(path, bytes, version);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("path", path);
        json.put("stat", Formats.statJson(s));
        out.result(json, List.of());
        return ExitCode.OK;
    }
}
