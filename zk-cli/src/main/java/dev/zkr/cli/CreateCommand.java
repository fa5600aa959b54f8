package dev.zkr.cli;

import dev.zkr.client.Acl;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code create [-e] [-s] [-c] [-p] [--acl ACL[,ACL...]] PATH [DATA]}: creates a node and prints its actual path
 * (with the sequence suffix for {@code -s}); with {@code --acl} the node gets that ACL ({@link AclSyntax}), missing
 * parents ({@code -p}) stay open. Ephemeral nodes live as long as the session: until the one-shot command ends, or the shell.
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

    @Option(names = "--acl", paramLabel = "ACL[,ACL...]",
            description = "The node's ACL: scheme:id:perms entries joined by commas (default world:anyone:cdrwa).")
    String acl;

    @Parameters(index = "0", paramLabel = "PATH", description = "The node.")
    String path;

    @Parameters(index = "1", paramLabel = "DATA", arity = "0..1", defaultValue = "",
            description = "Its data (text, or with --hex / --base64; default empty).")
    String data;

    @Override
    protected int run(ZkClient client, Output out) {
        CreateMode mode = mode(ephemeral, sequential, container);
        byte[] bytes = out.format().decode(data);
        Created c;
        if (acl == null) {
            c = client.createWithStat(path, bytes, mode, parents ? Parents.PERSISTENT : Parents.NONE);
        } else {
            List<Acl> acls = AclSyntax.parseList(acl);
            int slash = path.lastIndexOf('/');
            if (parents && slash > 0) { // missing parents are open (world:anyone:cdrwa), as without --acl
                try {
                    client.create(path.substring(0, slash), new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
                } catch (ZkException.NodeExists already) {
                    // fine
                }
            }
            c = ClientSupport.await(client.createAsync(path, bytes, mode, acls));
        }
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
