package dev.zkr.cli;

import dev.zkr.client.NodeData;
import dev.zkr.client.ZkClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code get [-s] PATH}: a node's data (as text, {@code --hex} or {@code --base64}), with its Stat on {@code -s}. */
@Command(name = "get", mixinStandardHelpOptions = true,
        description = "Print a node's data (text; --hex or --base64 for binary data).")
final class GetCommand extends NodeCommand {

    @Option(names = {"-s", "--stat"}, description = "Print the Stat after the data.")
    boolean stat;

    @Parameters(paramLabel = "PATH", description = "The node.")
    String path;

    @Override
    protected int run(ZkClient client, Output out) {
        NodeData d = client.getData(path);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("path", path);
        Formats.putData(json, d.data(), out.format());
        json.put("stat", Formats.statJson(d.stat()));
        List<String> text = new ArrayList<>();
        text.add(out.format().encode(d.data()));
        if (stat) {
            text.addAll(Formats.statLines(d.stat()));
        }
        out.result(json, text);
        return ExitCode.OK;
    }
}
