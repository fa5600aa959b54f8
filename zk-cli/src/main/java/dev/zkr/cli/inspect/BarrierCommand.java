package dev.zkr.cli.inspect;

import dev.zkr.cli.Output;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/**
 * {@code barrier PATH [--parties N]}: who entered a {@code DoubleBarrier}, whether it is open, and (given the
 * parties) how many are still to come or have left; or whether a {@code SimpleBarrier} is up.
 */
@Command(name = "barrier", mixinStandardHelpOptions = true,
        description = "Show a barrier at PATH: who entered, whether it is open, who is still to come or has left.")
public final class BarrierCommand extends InspectCommand {

    @Option(names = "--parties", paramLabel = "N",
            description = "The barrier's parties (not stored in its nodes): counts who is missing and who left.")
    Integer parties;

    @Override
    void inspect(Inspector in, ReportFormat f, Output out) {
        Znode node = in.existing(path);
        List<Znode> children = in.children(path);
        BarrierLayout.BarrierReport r = children.isEmpty() && parties == null && node.stat().numChildren() == 0
                ? BarrierLayout.simple(node)
                : BarrierLayout.doubleBarrier(children, parties);
        out.result(f.barrierJson(path, r), f.barrierText(path, r));
    }
}
