package dev.zkr.chaos.history;

/**
 * One completed client operation: who ({@code process}, a client worker; a new number after its session was
 * renewed), what ({@code f}, a function name such as {@code read}, {@code write}, {@code cas}, {@code add}), on which
 * {@code key}, with which argument {@code arg}, when ({@code invoke}/{@code complete}: nanoseconds since the run's
 * start), and what came back: {@code OK} with a {@code result}, {@code FAIL} (definitely not done, {@code error}
 * names why) or {@code INFO} (indeterminate: lost connection, timeout — it may or may not have taken effect).
 */
public record Op(int process, String f, String key, String arg, long invoke, long complete, Status status,
                 String result, String error) {

    /** The three outcomes of Jepsen's histories. */
    public enum Status { OK, FAIL, INFO }

    public boolean ok() {
        return status == Status.OK;
    }

    public boolean failed() {
        return status == Status.FAIL;
    }

    public boolean indeterminate() {
        return status == Status.INFO;
    }

    /** One JSON object on one line. */
    public String toJson() {
        return "{\"process\":" + process + ",\"f\":" + Json.str(f) + ",\"key\":" + Json.str(key) + ",\"arg\":"
                + Json.str(arg) + ",\"invokeMs\":" + Json.ms(invoke) + ",\"completeMs\":" + Json.ms(complete)
                + ",\"status\":\"" + status + "\",\"result\":" + Json.str(result) + ",\"error\":" + Json.str(error)
                + "}";
    }
}
