package dev.zkr.cli.inspect;

import dev.zkr.cli.ExitCode;
import dev.zkr.cli.NodeCommand;
import dev.zkr.cli.Output;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkPaths;
import picocli.CommandLine.Parameters;

/**
 * A recipe inspection: sync, read the recipe's nodes under PATH ({@link Inspector}), interpret them with a pure
 * layout reader, print the report ({@link ReportFormat}).
 */
abstract class InspectCommand extends NodeCommand {

    @Parameters(paramLabel = "PATH", description = "The recipe's node.")
    String path;

    @Override
    protected final int run(ZkClient client, Output out) {
        ZkPaths.validate(path);
        Inspector in = new Inspector(client).synced(path);
        // one "now" for every age of a report (the oldest item's age and each item's agree)
        inspect(in, new ReportFormat(System.currentTimeMillis(), out.format()), out);
        return ExitCode.OK;
    }

    abstract void inspect(Inspector in, ReportFormat f, Output out);
}
