package dev.zkr.samples.mapreduce;

import dev.zkr.client.ConnectionState;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which participants' connections a server kill cut (their client went SUSPENDED after it) and which of them got
 * their session back on another server (RECONNECTED) or lost it (LOST). Fed by every participant's connection state
 * listener; counts only once {@link #arm() armed}, just before the kill.
 */
final class Disconnects {

    private final Set<String> cut = new TreeSet<>();
    private final Set<String> reconnected = new TreeSet<>();
    private final Set<String> lost = new TreeSet<>();
    private boolean armed;

    synchronized void arm() {
        armed = true;
    }

    /** A participant's client changed state. */
    synchronized void changed(String participant, ConnectionState state) {
        if (!armed) {
            return;
        }
        switch (state) {
            case SUSPENDED -> cut.add(participant);
            case RECONNECTED -> reconnected.add(participant);
            case LOST -> {
                if (cut.contains(participant) && !reconnected.contains(participant)) {
                    lost.add(participant);
                }
            }
            default -> {
                // CONNECTED: a new session, not a participant's
            }
        }
    }

    /** Participants whose connection was cut, in name order. */
    synchronized List<String> cut() {
        return new ArrayList<>(cut);
    }

    /** One line: how many were cut, who, and whether they kept their sessions. */
    synchronized String summary(int participants) {
        if (cut.isEmpty()) {
            return "no participant's connection was on it";
        }
        long back = cut.stream().filter(reconnected::contains).count();
        return String.format("connections cut: %d of %d (%s), %d reconnected with their session, %d lost it",
                cut.size(), participants, String.join(", ", cut), back, lost.size());
    }
}
