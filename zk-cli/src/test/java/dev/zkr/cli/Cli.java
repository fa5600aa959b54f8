package dev.zkr.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Runs {@code zkr} in-process, as the shell script would run its main, with stdout and stderr captured. */
public final class Cli {

    private Cli() {
    }

    /** What one run printed and returned. */
    public record Result(int exit, String out, String err) {

        /** The stdout lines. */
        public List<String> lines() {
            return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n")); // every line ends with \n
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** Runs {@code zkr --server <server> args...}. */
    public static Result zkr(String server, String... args) {
        List<String> all = new ArrayList<>(List.of("--server", server));
        all.addAll(List.of(args));
        return raw(all.toArray(String[]::new));
    }

    /** Runs {@code zkr args...} exactly as given. */
    public static Result raw(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Zkr.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(exit, out.toString().replace("\r\n", "\n"), err.toString().replace("\r\n", "\n"));
    }

    /** Waits until the condition holds, failing after the timeout. */
    public static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(5); // polling interval of a condition with a deadline, not synchronisation
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }
}
