package dev.zkr.cli.inspect;

import dev.zkr.cli.Output;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code queue PATH}: depth, age of the oldest item, claimed items and the first items of a queue. */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = "Show the queue at PATH: depth, oldest item's age, claimed items, first items.")
public final class QueueCommand extends InspectCommand {

    @Option(names = {"-l", "--limit"}, paramLabel = "N", defaultValue = "10",
            description = "How many of the first items to list (default ${DEFAULT-VALUE}).")
    int limit;

    @Override
    void inspect(Inspector in, ReportFormat f, Output out) {
        QueueLayout.QueueReport r = QueueLayout.read(in.children(path), f.now(), limit);
        out.result(f.queueJson(path, r), f.queueText(path, r));
    }
}
