package dev.zkr.consensus;

/** A message for peer {@code to}. */
public record Envelope(int to, Message message) {
    @Override
    public String toString() {
        return "->" + to + " " + message;
    }
}
