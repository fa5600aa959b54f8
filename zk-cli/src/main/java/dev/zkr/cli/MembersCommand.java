package dev.zkr.cli;

import dev.zkr.client.EnsembleMember;
import dev.zkr.client.ZkClient;
import picocli.CommandLine.Command;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code members}: the ensemble's members as the connected server applied them last (docs/membership.md), one per
 * line as {@code id=host:peerPort:clientPort (role)}; nothing for a standalone server.
 */
@Command(name = "members", mixinStandardHelpOptions = true,
        description = "List the ensemble's members: voters, learners and observers (zkr servers only).")
final class MembersCommand extends NodeCommand {

    @Override
    protected int run(ZkClient client, Output out) {
        print(client.members(), out);
        return ExitCode.OK;
    }

    /** Prints members as lines, or with --json as a list of objects. */
    static void print(List<EnsembleMember> members, Output out) {
        List<Object> json = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        for (EnsembleMember m : members) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("id", m.id());
            o.put("role", m.role().name().toLowerCase(Locale.ROOT));
            o.put("host", m.host());
            o.put("peerPort", m.peerPort());
            o.put("clientPort", m.clientPort());
            json.add(o);
            lines.add(m.toString());
        }
        out.result(json, lines);
    }
}
