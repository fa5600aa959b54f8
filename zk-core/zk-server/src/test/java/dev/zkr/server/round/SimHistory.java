package dev.zkr.server.round;

import dev.zkr.check.Call;
import dev.zkr.check.Operation;
import dev.zkr.check.Outcome;
import dev.zkr.check.SessionReply;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the simulated clients saw, in zk-check's formats: operations for the linearizability check (invocation and
 * reply on one logical clock that ticks at every send and receipt, so real-time order is exact) and every
 * successful read and write reply in arrival order for the sequential-consistency and durability checks.
 */
final class SimHistory {

    /** An operation sent and not yet answered. */
    static final class Open {
        final long client;
        final long invoke;
        final String key;
        final Call call;

        Open(long client, long invoke, String key, Call call) {
            this.client = client;
            this.invoke = invoke;
            this.key = key;
            this.call = call;
        }
    }

    private long clock;
    private final List<Operation> operations = new ArrayList<>();
    private final List<SessionReply> replies = new ArrayList<>();
    private final Map<Open, Boolean> open = new LinkedHashMap<>();
    long indeterminate;

    /** An operation is sent now. */
    Open invoke(long client, String key, Call call) {
        Open o = new Open(client, ++clock, key, call);
        open.put(o, Boolean.TRUE);
        return o;
    }

    /** Its reply arrived now. */
    void complete(Open o, Outcome outcome) {
        if (open.remove(o) == null) {
            throw new IllegalStateException("completed twice: " + o.call);
        }
        operations.add(new Operation(o.client, o.invoke, ++clock, o.key, o.call, outcome));
    }

    /** It will never get a reply (connection lost): it may take effect at any later point, or never. */
    void lose(Open o) {
        if (open.remove(o) == null) {
            throw new IllegalStateException("lost twice: " + o.call);
        }
        indeterminate++;
        operations.add(new Operation(o.client, o.invoke, Long.MAX_VALUE, o.key, o.call, Outcome.indeterminate()));
    }

    void reply(SessionReply r) {
        replies.add(r);
    }

    /** The operations, open ones as indeterminate. */
    List<Operation> operations() {
        List<Operation> all = new ArrayList<>(operations);
        for (Open o : open.keySet()) {
            all.add(new Operation(o.client, o.invoke, Long.MAX_VALUE, o.key, o.call, Outcome.indeterminate()));
        }
        return all;
    }

    List<SessionReply> replies() {
        return replies;
    }
}
