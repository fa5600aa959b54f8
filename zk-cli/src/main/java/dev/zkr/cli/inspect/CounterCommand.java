package dev.zkr.cli.inspect;

import dev.zkr.cli.Output;
import dev.zkr.client.ZkPaths;
import picocli.CommandLine.Command;

/** {@code counter PATH}: the value of a {@code DistributedCounter} and the state of its compare-and-set gate. */
@Command(name = "counter", mixinStandardHelpOptions = true,
        description = "Show the value of the counter at PATH and whether a compare-and-set holds it.")
public final class CounterCommand extends InspectCommand {

    @Override
    void inspect(Inspector in, ReportFormat f, Output out) {
        in.existing(path);
        CounterLayout.CounterReport r = CounterLayout.read(in.node(ZkPaths.join(path, CounterLayout.VALUE)),
                in.childrenOrNull(ZkPaths.join(path, CounterLayout.FREEZE)));
        out.result(f.counterJson(path, r), f.counterText(path, r));
    }
}
