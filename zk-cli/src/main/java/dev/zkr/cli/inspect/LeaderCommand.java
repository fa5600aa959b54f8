package dev.zkr.cli.inspect;

import dev.zkr.cli.Output;
import dev.zkr.client.ZkPaths;
import picocli.CommandLine.Command;

import java.util.List;

/** {@code leader PATH}: the leader (id, fencing token) and the participants of a {@code LeaderLatch} election. */
@Command(name = "leader", mixinStandardHelpOptions = true,
        description = "Show the leader of the election at PATH, its fencing token, and the participants.")
public final class LeaderCommand extends InspectCommand {

    @Override
    void inspect(Inspector in, ReportFormat f, Output out) {
        List<Znode> children = in.children(path);
        ElectionLayout.LeaderReport r;
        if (ElectionLayout.isUnfair(children)) {
            List<Znode> members = in.childrenOrNull(ZkPaths.join(path, ElectionLayout.MEMBERS));
            r = ElectionLayout.unfair(in.node(ZkPaths.join(path, ElectionLayout.LEADER)),
                    members == null ? List.of() : members);
        } else {
            r = ElectionLayout.fair(children);
        }
        out.result(f.leaderJson(path, r), f.leaderText(path, r));
    }
}
