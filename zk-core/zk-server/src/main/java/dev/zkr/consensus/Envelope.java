package dev.zkr.consensus;

/** A message for peer {@code to}. */
public record Envelope(int to, ReplicaMessage message) {
    @Override
    public String toString() {
        return "->" + to + " " + message;
    }
}
