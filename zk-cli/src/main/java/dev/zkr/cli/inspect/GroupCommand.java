package dev.zkr.cli.inspect;

import dev.zkr.cli.Output;
import picocli.CommandLine.Command;

import java.util.List;

/** {@code group PATH}: the members of a {@code GroupMembership} group, with their sessions and data. */
@Command(name = "group", mixinStandardHelpOptions = true,
        description = "Show the members of the group at PATH (id, session, since, data).")
public final class GroupCommand extends InspectCommand {

    @Override
    void inspect(Inspector in, ReportFormat f, Output out) {
        List<GroupLayout.GroupMember> members = GroupLayout.read(in.children(path));
        out.result(f.groupJson(path, members), f.groupText(path, members));
    }
}
