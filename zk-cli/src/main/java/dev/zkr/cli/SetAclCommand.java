package dev.zkr.cli;

import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code setacl [-v AVERSION] PATH ACL[,ACL...]}: replaces a node's ACL, if its ACL version matches when given. */
@Command(name = "setacl", mixinStandardHelpOptions = true,
        description = "Replace a node's ACL (only at the given ACL version with -v).")
final class SetAclCommand extends NodeCommand {

    @Option(names = {"-v", "--aversion"}, paramLabel = "AVERSION", defaultValue = "-1",
            description = "Fail unless the node's ACL version (aclVersion) is this (default: any).")
    int aversion;

    @Parameters(index = "0", paramLabel = "PATH", description = "The node.")
    String path;

    @Parameters(index = "1", paramLabel = "ACL[,ACL...]",
            description = "scheme:id:perms entries joined by commas, perms letters of cdrwa "
                    + "(digest:bob:HASH:rw, ip:10.0.0.0/8:r, world:anyone:cdrwa, auth::cdrwa, x509:CN=app,O=org:r).")
    String acl;

    @Override
    protected int run(ZkClient client, Output out) {
        Stat s = client.setAcl(path, AclSyntax.parseList(acl), aversion);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("path", path);
        json.put("stat", Formats.statJson(s));
        out.result(json, List.of());
        return ExitCode.OK;
    }
}
