package dev.zkr.cli;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkPaths;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code ls [-R] PATH}: the children of a node, sorted; with {@code -R} every path of the subtree. */
@Command(name = "ls", mixinStandardHelpOptions = true,
        description = "List the children of a node, sorted by name (-R: every path below it).")
final class LsCommand extends NodeCommand {

    @Option(names = "-R", description = "List the whole subtree, one path a line.")
    boolean recursive;

    @Parameters(paramLabel = "PATH", defaultValue = "/", description = "The node (default /).")
    String path;

    @Override
    protected int run(ZkClient client, Output out) {
        ZkPaths.validate(path);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("path", path);
        if (recursive) {
            List<String> paths = Subtree.read(client, path, -1).paths();
            json.put("paths", paths);
            out.result(json, paths);
        } else {
            List<String> names = client.getChildren(path).stream().sorted().toList();
            json.put("children", names);
            out.result(json, names);
        }
        return ExitCode.OK;
    }
}
