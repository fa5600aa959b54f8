package dev.zkr.chaos.recipes;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;

/**
 * The recipe workloads' records in the history. Every record's {@code key} is a hold id ({@code <worker>-<n>}: one
 * acquire and what follows it, or one latch instance), except connection states, keyed {@code client}:
 * <ul>
 *   <li>{@code acquire}: arg the role ({@code mutex}, {@code read}, {@code write}); OK with the fencing token as
 *       result ({@code -1} when unknown), FAIL {@code NotAcquired} when the timeout ran out, INFO on an error;</li>
 *   <li>{@code hold-state}: the lease's state (arg {@code HELD}, {@code UNCERTAIN}, {@code LOST}, {@code RELEASED}),
 *       recorded once right after the acquire and on every change the lease reports;</li>
 *   <li>{@code conn-state}: the worker's client's connection state (arg {@code CONNECTED}, {@code SUSPENDED},
 *       {@code RECONNECTED}, {@code LOST}, {@code READ_ONLY});</li>
 *   <li>{@code write-fenced}: arg the token; OK when the resource accepted it, FAIL {@code StaleToken} when it
 *       rejected it; result {@code held} or {@code uncertain}: whether the writer's lease was valid as it wrote;</li>
 *   <li>{@code release}: invoked before the lease is closed;</li>
 *   <li>latches: {@code join} (latch started), {@code elected} (result the token), {@code revoked}, {@code resign}
 *       (invoked before the latch is closed).</li>
 * </ul>
 * Instants (states, elected, revoked) have invoke = complete.
 */
final class Events {

    static final String ACQUIRE = "acquire";
    static final String HOLD_STATE = "hold-state";
    static final String CONN_STATE = "conn-state";
    static final String WRITE = "write-fenced";
    static final String RELEASE = "release";
    static final String JOIN = "join";
    static final String ELECTED = "elected";
    static final String REVOKED = "revoked";
    static final String RESIGN = "resign";

    static final String HELD = "held";
    static final String UNCERTAIN = "uncertain";

    private Events() {
    }

    static void instant(History h, int process, String f, String key, String arg, String result) {
        long t = h.now();
        h.add(new Op(process, f, key, arg, t, t, Op.Status.OK, result, null));
    }

    static void connState(History h, int process, String state) {
        instant(h, process, CONN_STATE, "client", state, null);
    }

    /** Writes {@code token} to the resource and records the attempt; {@code valid}: the writer believes it holds. */
    static boolean write(History h, FencedResource resource, int process, String hold, long token, boolean valid) {
        long t = h.now();
        boolean accepted = resource.write(t, process, token);
        h.add(new Op(process, WRITE, hold, Long.toString(token), t, h.now(),
                accepted ? Op.Status.OK : Op.Status.FAIL, valid ? HELD : UNCERTAIN,
                accepted ? null : "StaleToken"));
        return accepted;
    }
}
