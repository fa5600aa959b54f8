package dev.zkr.cli;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkPaths;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code tree PATH}: the subtree drawn as a tree. */
@Command(name = "tree", mixinStandardHelpOptions = true, description = "Draw the subtree below a node.")
final class TreeCommand extends NodeCommand {

    @Option(names = {"-d", "--depth"}, paramLabel = "N", defaultValue = "-1",
            description = "Levels to show below PATH (default: all).")
    int depth;

    @Parameters(paramLabel = "PATH", defaultValue = "/", description = "The node (default /).")
    String path;

    @Override
    protected int run(ZkClient client, Output out) {
        ZkPaths.validate(path);
        Subtree tree = Subtree.read(client, path, depth);
        out.result(json(tree), tree.drawing());
        return ExitCode.OK;
    }

    private static Map<String, Object> json(Subtree t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", t.name());
        m.put("path", t.path());
        List<Object> children = t.children().stream().map(c -> (Object) json(c)).toList();
        m.put("children", children);
        return m;
    }
}
