package dev.zkr.chaos.nemesis;

import dev.zkr.chaos.history.Json;

/** One injected fault: its kind, what it did, and when (nanoseconds since the run's start) it began and ended. */
public record FaultWindow(String kind, String description, long start, long end) {

    public String toJson() {
        return "{\"kind\":" + Json.str(kind) + ",\"description\":" + Json.str(description) + ",\"startMs\":"
                + Json.ms(start) + ",\"endMs\":" + Json.ms(end) + "}";
    }
}
