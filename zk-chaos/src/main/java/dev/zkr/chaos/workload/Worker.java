package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One client worker: its client (whose session may be renewed after an expiry), its own seeded random source, and
 * {@link #call} which runs an asynchronous client call with a deadline and records it in the history with its
 * outcome: OK, FAIL for errors that prove the call had no effect (NoNode, NodeExists, BadVersion, NotEmpty, ...),
 * INFO for everything else (connection loss, session expiry, timeout): it may or may not have taken effect.
 */
public final class Worker {

    /** How long one call may take before it is recorded as indeterminate (the call may still complete later). */
    public static final long CALL_TIMEOUT_MS = 15_000;

    private final int index;
    private final ZkClient client;
    private final Random random;
    private final History history;
    private final BooleanSupplier stopped;
    private final String system;
    private final String connectString;

    public Worker(int index, ZkClient client, Random random, History history, BooleanSupplier stopped, String system,
                  String connectString) {
        this.index = index;
        this.client = client;
        this.random = random;
        this.history = history;
        this.stopped = stopped;
        this.system = system;
        this.connectString = connectString;
    }

    /** The same worker seen by one part of a {@link CompositeWorkload}: another index, that part's history. */
    Worker withHistory(int newIndex, History part) {
        return new Worker(newIndex, client, random, part, stopped, system, connectString);
    }

    /** {@code zkr} or {@code zookeeper}. */
    public String system() {
        return system;
    }

    /**
     * The connect string of this worker's client, for workloads that open a client of their own (Curator's
     * recipes on ZooKeeper).
     */
    public String connectString() {
        return connectString;
    }

    /** This worker's number (0-based), also its process id in the history. */
    public int index() {
        return index;
    }

    public ZkClient client() {
        return client;
    }

    public Random random() {
        return random;
    }

    public History history() {
        return history;
    }

    public boolean stopped() {
        return stopped.getAsBoolean();
    }

    /** What a call returned: its record in the history, and the value when OK. */
    public record Result<T>(Op op, T value) {
        public boolean ok() {
            return op.ok();
        }
    }

    /**
     * Runs {@code call}, waits up to {@link #CALL_TIMEOUT_MS}, records it as {@code f(key, arg)} with the result
     * {@code describe} gives for its value, and returns both.
     */
    public <T> Result<T> call(String f, String key, String arg, Supplier<CompletableFuture<T>> call,
                              Function<T, String> describe) {
        long invoke = history.now();
        T value = null;
        Op.Status status;
        String result = null;
        String error = null;
        try {
            value = call.get().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            status = Op.Status.OK;
            result = describe.apply(value);
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            error = errorName(cause);
            status = definite(cause) ? Op.Status.FAIL : Op.Status.INFO;
        } catch (ZkException e) {
            error = errorName(e);
            status = definite(e) ? Op.Status.FAIL : Op.Status.INFO;
        } catch (TimeoutException e) {
            error = "Timeout";
            status = Op.Status.INFO;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            error = "Interrupted";
            status = Op.Status.INFO;
        } catch (RuntimeException e) {
            error = e.getClass().getSimpleName();
            status = Op.Status.INFO;
        }
        Op op = new Op(index, f, key, arg, invoke, history.now(), status, result, error);
        history.add(op);
        return new Result<>(op, value);
    }

    /** Errors after which the call certainly had no effect. */
    static boolean definite(Throwable t) {
        if (!(t instanceof ZkException z)) {
            return false;
        }
        return switch (z.code()) {
            case NO_NODE, NODE_EXISTS, BAD_VERSION, NOT_EMPTY, NO_CHILDREN_FOR_EPHEMERALS, INVALID_PATH,
                 DATA_TOO_LARGE, BAD_ARGUMENTS, NO_AUTH -> true;
            default -> false;
        };
    }

    /** The exception's simple class name: for ZkExceptions the checker's names ({@code NoNode}, {@code BadVersion}). */
    static String errorName(Throwable t) {
        return t.getClass().getSimpleName();
    }
}
