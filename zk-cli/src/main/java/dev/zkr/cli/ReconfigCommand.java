package dev.zkr.cli;

import dev.zkr.client.MembershipChange;
import dev.zkr.client.ZkClient;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code reconfig}: one membership change (docs/membership.md), for the superuser ({@code --auth
 * digest:super:...}): add a server (it joins as a learner and becomes a voter once it caught up), add an observer,
 * promote an observer, or remove a member. Prints the members after the change, once it committed.
 */
@Command(name = "reconfig", mixinStandardHelpOptions = true,
        description = "Change the ensemble's membership, one server at a time (zkr servers only; superuser).")
final class ReconfigCommand extends NodeCommand {

    @ArgGroup(exclusive = true, multiplicity = "1")
    Change change;

    static final class Change {
        @Option(names = "--add", paramLabel = "ID=HOST:PEERPORT:CLIENTPORT",
                description = "Add a server (started with join=true): a learner, then a voter once caught up.")
        String add;

        @Option(names = "--add-observer", paramLabel = "ID=HOST:PEERPORT:CLIENTPORT",
                description = "Add an observer: it serves clients and never votes.")
        String addObserver;

        @Option(names = "--promote", paramLabel = "ID", description = "Make an observer a voter.")
        Integer promote;

        @Option(names = "--remove", paramLabel = "ID", description = "Remove a member (the leader included).")
        Integer remove;
    }

    @Override
    protected int run(ZkClient client, Output out) {
        MembersCommand.print(client.reconfig(toChange()), out);
        return ExitCode.OK;
    }

    private MembershipChange toChange() {
        if (change.add != null || change.addObserver != null) {
            String spec = change.add != null ? change.add : change.addObserver;
            int eq = spec.indexOf('=');
            String[] where = eq < 0 ? new String[0] : spec.substring(eq + 1).split(":", -1);
            if (eq < 1 || where.length != 3) {
                throw new UsageException("expected ID=HOST:PEERPORT:CLIENTPORT, got '" + spec + "'");
            }
            int id = number(spec.substring(0, eq), "ID");
            int peer = number(where[1], "PEERPORT");
            int client = number(where[2], "CLIENTPORT");
            return change.add != null ? MembershipChange.add(id, where[0], peer, client)
                    : MembershipChange.addObserver(id, where[0], peer, client);
        }
        return change.promote != null ? MembershipChange.promote(change.promote)
                : MembershipChange.remove(change.remove);
    }

    private static int number(String s, String what) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(what + " is not a number: '" + s + "'");
        }
    }
}
