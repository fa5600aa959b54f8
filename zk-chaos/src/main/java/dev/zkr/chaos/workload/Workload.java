package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.History;

import java.util.List;
import java.util.Set;

/**
 * What the clients do during a run and what must hold afterwards. The runner calls {@link #setup} once, runs
 * {@link #work} on every worker thread until the run's time is up, heals every fault, waits for the ensemble to be
 * whole, and calls {@link #check} with a reader per server. Implementations keep their own thread-safe state.
 */
public interface Workload {

    /** The name given on the command line. */
    String name();

    /** Creates the nodes the workers need (through a client of the whole ensemble), before any fault. */
    void setup(Worker admin) throws Exception;

    /** One worker's loop; returns when {@link Worker#stopped()} (an exception ends only this worker, logged). */
    void work(Worker worker) throws Exception;

    /**
     * Checks the history and the healed ensemble (read through {@code servers}, one client per member); returns the
     * anomalies found, each one readable line, empty when the run is valid.
     */
    List<String> check(History history, FinalReads servers) throws Exception;

    /** The functions ({@link dev.zkr.chaos.history.Op#f()}) that change state, for the unavailability figures. */
    Set<String> writes();

    /** How many operations the checks looked at (for the summary table); by default every operation. */
    default long opsChecked(History history) {
        return history.ops().size();
    }

    /** How many workers to run when {@code requested} were asked for (a workload may need more). */
    default int workers(int requested) {
        return requested;
    }

    /**
     * Counts worth reporting beside the verdict (duplicates, sessions expired, zxid checks), one line each, known
     * after {@link #check}; {@code summary.txt} lists them. None by default.
     */
    default List<String> facts() {
        return List.of();
    }

    /**
     * Releases what the workload holds beyond its workers' clients (sessions of its own), after {@link #check} or
     * when the run ends without one. Nothing by default.
     */
    default void close() {
    }
}
