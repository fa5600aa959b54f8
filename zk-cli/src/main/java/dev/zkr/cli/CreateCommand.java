package dev.zkr.cli;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code create [-e] [-s] [-c] [-p] PATH [DATA]}: creates a node and prints its actual path (with the sequence
 * suffix for {@code -s}). Ephemeral nodes live as long as the session: until the one-shot command ends, or the shell.
 */
@Command(name = "create", mixinStandardHelpOptions = true,
        description = "Create a node and print its path (ephemeral nodes end with the session: use the shell).")
final class CreateCommand extends NodeCommand {

    @Option(names = {"-e", "--ephemeral"}, description = "Ephemeral: deleted when this session ends.")
    boolean ephemeral;

    @Option(names = {"-s", "--sequential"}, description = "Sequential: the name gets a 10-digit sequence suffix.")
    boolean sequential;

    @Option(names = {"-c", "--container"}, description = "Container: removed by the server once its last child goes.")
    boolean container;

    @Option(names = {"-p", "--parents"}, description = "Create missing parents (as persistent nodes).")
    boolean parents;

    @Parameters(index = "0", paramLabel = "PATH", description = "The node.")
    String path;

    @Parameters(index = "1", paramLabel = "DATA", arity = "0..1", defaultValue = "",
            description = "Its data (text, or with --hex / --base64; default empty).")
    String data;

    @Override
    protected int run(ZkClient client, Output out) {
        CreateMode mode = mode(ephemeral, sequential, container);
        byte[] bytes = out.format().decode(data);
        Created c = client.createWithStat(path, bytes, mode, parents ? Parents.PERSISTENT : Parents.NONE);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("path", c.path());
        json.put("mode", mode.name());
        json.put("stat", Formats.statJson(c.stat()));
        out.result(json, List.of(c.path()));
        return ExitCode.OK;
    }

    /** The create mode of the flags; a container is neither ephemeral nor sequential. */
    static CreateMode mode(boolean ephemeral, boolean sequential, boolean container) {
        if (container) {
            if (ephemeral || sequential) {
                throw new UsageException("-c (container) cannot be combined with -e or -s");
            }
            return CreateMode.CONTAINER;
        }
        if (ephemeral) {
            return sequential ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL;
        }
        return sequential ? CreateMode.PERSISTENT_SEQUENTIAL : CreateMode.PERSISTENT;
    }
}
