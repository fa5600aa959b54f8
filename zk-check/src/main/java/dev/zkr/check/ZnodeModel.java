package dev.zkr.check;

import java.util.List;

/**
 * A znode as a versioned register ({@link Znode}), with the operations of {@link ZnodeCall}.
 *
 * <p>Ok values: {@code Create}, {@code SetData} and {@code Delete} report the node after the operation
 * ({@code data@v0}, {@code data@vN}, absent), {@code Read} the node it saw, {@code CheckVersion} the node checked;
 * {@code null} checks nothing. Failures the register can answer constrain the state as in ZooKeeper: NodeExists for
 * create; NoNode and BadVersion for setData, delete and check; NoNode for read. Any other error (e.g. NoNode of a
 * create whose parent is missing, which lies outside this register) leaves the state unchanged and constrains
 * nothing.
 */
public final class ZnodeModel implements Model<Znode> {

    /** Error of a create on a present node. */
    public static final String NODE_EXISTS = "NodeExists";
    /** Error of setData, delete or check on an absent node (and of a read of one). */
    public static final String NO_NODE = "NoNode";
    /** Error of setData, delete or check on a present node at another version. */
    public static final String BAD_VERSION = "BadVersion";

    /** What one call does to one state: the state it leaves and the outcome it answers. */
    public record Effect(Znode next, Outcome outcome) {
    }

    @Override
    public Znode initial() {
        return Znode.ABSENT;
    }

    @Override
    public List<Znode> step(Znode state, Operation op) {
        if (!(op.call() instanceof ZnodeCall call)) {
            throw new IllegalArgumentException("not a znode call: " + op.call());
        }
        Effect effect = apply(state, call);
        Outcome recorded = op.outcome();
        if (recorded instanceof Outcome.Indeterminate) {
            return List.of(effect.next());
        }
        if (recorded instanceof Outcome.Failed failed && !constrains(call, failed.error())) {
            return List.of(state);
        }
        return matches(call, effect.outcome(), recorded) ? List.of(effect.next()) : List.of();
    }

    /** Reads, version checks and every failure change no state. */
    @Override
    public boolean preservesState(Operation op) {
        return op.completed() && (op.outcome() instanceof Outcome.Failed
                || op.call() instanceof ZnodeCall.Read || op.call() instanceof ZnodeCall.CheckVersion);
    }

    /** The sequential specification: what {@code call} does when it runs alone on {@code state}. */
    public Effect apply(Znode state, ZnodeCall call) {
        if (call instanceof ZnodeCall.Create create) {
            return state instanceof Znode.Present
                    ? refused(state, NODE_EXISTS)
                    : done(Znode.present(create.data(), 0));
        }
        if (call instanceof ZnodeCall.Read) {
            return new Effect(state, Outcome.ok(state));
        }
        if (!(state instanceof Znode.Present node)) {
            return refused(state, NO_NODE);
        }
        int expected = versionOf(call);
        if (expected != -1 && expected != node.version()) {
            return refused(state, BAD_VERSION);
        }
        if (call instanceof ZnodeCall.SetData set) {
            return done(Znode.present(set.data(), node.version() + 1));
        }
        if (call instanceof ZnodeCall.Delete) {
            return done(Znode.ABSENT);
        }
        return new Effect(state, Outcome.ok(state));
    }

    private static int versionOf(ZnodeCall call) {
        if (call instanceof ZnodeCall.SetData set) {
            return set.expectedVersion();
        }
        if (call instanceof ZnodeCall.Delete delete) {
            return delete.expectedVersion();
        }
        return ((ZnodeCall.CheckVersion) call).expectedVersion();
    }

    private static boolean matches(ZnodeCall call, Outcome specified, Outcome recorded) {
        if (call instanceof ZnodeCall.Read && recorded instanceof Outcome.Failed failed && failed.error().equals(NO_NODE)) {
            recorded = Outcome.ok(Znode.ABSENT);
        }
        if (recorded instanceof Outcome.Ok ok) {
            return specified instanceof Outcome.Ok answer && (ok.value() == null || ok.value().equals(answer.value()));
        }
        return recorded.equals(specified);
    }

    /** Whether the register can answer this error to this call (else the error lies outside the register). */
    private static boolean constrains(ZnodeCall call, String error) {
        if (call instanceof ZnodeCall.Create) {
            return error.equals(NODE_EXISTS);
        }
        if (call instanceof ZnodeCall.Read) {
            return error.equals(NO_NODE);
        }
        return error.equals(NO_NODE) || error.equals(BAD_VERSION);
    }

    private static Effect done(Znode next) {
        return new Effect(next, Outcome.ok(next));
    }

    private static Effect refused(Znode state, String error) {
        return new Effect(state, Outcome.failed(error));
    }
}
