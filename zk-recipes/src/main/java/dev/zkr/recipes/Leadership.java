package dev.zkr.recipes;

/**
 * One term of leadership of a {@link LeaderSelector}, handed to {@link TakeLeadership#takeLeadership}. It is
 * {@link LeaseState#HELD} while the participant leads with certainty, {@link LeaseState#UNCERTAIN} while the
 * connection is suspended (within the selector's bound), {@link LeaseState#LOST} once leadership is lost (expiry,
 * suspension past the bound, close or interrupt) and {@link LeaseState#RELEASED} after the callback returned. Only
 * {@code HELD} comes back from {@code UNCERTAIN}; the other two are final.
 */
public final class Leadership {

    private final LeaderSelector selector;
    private final long token;
    private final long owner;
    private volatile LeaseState state = LeaseState.HELD;

    Leadership(LeaderSelector selector, long token, long owner) {
        this.selector = selector;
        this.token = token;
        this.owner = owner;
    }

    /**
     * The state of this term. {@code HELD} also needs the session that owns the leading node connected: until the
     * selector has heard of a suspension or expiry, a term whose connection is down reads {@code UNCERTAIN}.
     */
    public LeaseState state() {
        LeaseState s = state;
        return s == LeaseState.HELD && !selector.connectedAs(owner) ? LeaseState.UNCERTAIN : s;
    }

    /** True while this term leads with certainty (its session owns the leading node and is connected). */
    public boolean isValid() {
        return state() == LeaseState.HELD;
    }

    /**
     * The fencing token of this term (the czxid of the leading node; successive terms of one path have increasing
     * tokens), or -1 once the term is not valid: a write carrying it after a loss can be refused downstream.
     */
    public long fencingToken() {
        return isValid() ? token : -1;
    }

    /** The selector this term belongs to. */
    public LeaderSelector selector() {
        return selector;
    }

    /** The state as the selector last set it, without the connection check. */
    LeaseState rawState() {
        return state;
    }

    long token() {
        return token;
    }

    /** Moves the state unless it is final already; true if it changed. */
    synchronized boolean move(LeaseState to) {
        LeaseState from = state;
        if (from == LeaseState.UNCERTAIN && to == LeaseState.HELD && !selector.connectedAs(owner)) {
            return false;
        }
        if (from == LeaseState.LOST || from == LeaseState.RELEASED || from == to) {
            return false;
        }
        state = to;
        return true;
    }

    @Override
    public String toString() {
        return "Leadership[" + selector.id() + ", token=" + token + ", " + state + "]";
    }
}
