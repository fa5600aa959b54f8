package dev.zkr.cli;

import dev.zkr.client.ZkClient;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * What every command shares: the root's options (session, output) and a {@link #run} that does the work.
 * Failures are thrown (ZkException, {@link UsageException}) and turned into one stderr line by {@link Zkr}.
 */
public abstract class NodeCommand implements Callable<Integer> {

    @ParentCommand
    protected Zkr root;

    @Spec
    protected CommandSpec spec;

    @Override
    public final Integer call() throws Exception {
        Output out = root.output(spec);
        return run(root.client(), out);
    }

    /** Does the command's work and returns its exit code. */
    protected abstract int run(ZkClient client, Output out) throws Exception;
}
