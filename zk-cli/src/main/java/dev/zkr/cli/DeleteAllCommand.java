package dev.zkr.cli;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code deleteall PATH}: deletes a node and its whole subtree, deepest first. Not atomic: nodes created below it
 * meanwhile make it list again; nodes already gone are fine.
 */
@Command(name = "deleteall", mixinStandardHelpOptions = true, description = "Delete a node and everything below it.")
final class DeleteAllCommand extends NodeCommand {

    private static final int ATTEMPTS = 10;

    @Parameters(paramLabel = "PATH", description = "The node (not the root).")
    String path;

    @Override
    protected int run(ZkClient client, Output out) {
        if ("/".equals(ZkPaths.validate(path))) {
            throw new UsageException("refusing to delete the root: name a node below it");
        }
        if (client.exists(path) == null) {
            throw ZkException.of(ZkException.Code.NO_NODE, path);
        }
        int deleted = deleteTree(client, path);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("path", path);
        json.put("deleted", deleted);
        out.result(json, List.of());
        return ExitCode.OK;
    }

    /** Deletes the subtree, deepest first; returns how many nodes this call deleted. */
    static int deleteTree(ZkClient client, String path) {
        int deleted = 0;
        for (int attempt = 0; ; attempt++) {
            List<String> children;
            try {
                children = client.getChildren(path);
            } catch (ZkException.NoNode gone) {
                return deleted;
            }
            for (String child : children) {
                deleted += deleteTree(client, ZkPaths.join(path, child));
            }
            try {
                client.delete(path, -1);
                return deleted + 1;
            } catch (ZkException.NoNode gone) {
                return deleted;
            } catch (ZkException.NotEmpty e) {
                if (attempt == ATTEMPTS) {
                    throw e; // something keeps creating children
                }
            }
        }
    }
}
