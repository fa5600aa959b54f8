package dev.zkr.cli;

import dev.zkr.client.Acl;
import dev.zkr.client.NodeAcl;
import dev.zkr.client.ZkClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code getacl [-s] PATH}: a node's ACL, one {@code scheme:id:perms} line per entry (the syntax {@code setacl}
 * takes), with its Stat on {@code -s}. Without ADMIN the server shows digest hashes as {@code x}.
 */
@Command(name = "getacl", mixinStandardHelpOptions = true,
        description = "Print a node's ACL, one scheme:id:perms line per entry.")
final class GetAclCommand extends NodeCommand {

    @Option(names = {"-s", "--stat"}, description = "Print the Stat after the ACL.")
    boolean stat;

    @Parameters(paramLabel = "PATH", description = "The node.")
    String path;

    @Override
    protected int run(ZkClient client, Output out) {
        NodeAcl acl = client.getAcl(path);
        List<Object> entries = new ArrayList<>();
        List<String> text = new ArrayList<>();
        for (Acl a : acl.acls()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("scheme", a.id().scheme());
            e.put("id", a.id().id());
            e.put("perms", AclSyntax.letters(a.perms()));
            entries.add(e);
            text.add(AclSyntax.format(a));
        }
        if (stat) {
            text.addAll(Formats.statLines(acl.stat()));
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("path", path);
        json.put("acl", entries);
        json.put("stat", Formats.statJson(acl.stat()));
        out.result(json, text);
        return ExitCode.OK;
    }
}
