package dev.zkr.samples.mapreduce;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The shuffle barrier as the master set it up: attempt number (each attempt has a fresh barrier path) and the
 * workers counted as its parties.
 */
record BarrierSpec(int attempt, List<String> members) {

    byte[] encode() {
        return Nodes.utf8("attempt=" + attempt + "\nmembers=" + String.join(",", members) + "\n");
    }

    static BarrierSpec decode(byte[] data) {
        Map<String, String> m = Nodes.props(Nodes.string(data));
        String members = m.getOrDefault("members", "");
        return new BarrierSpec(Integer.parseInt(m.get("attempt")),
                members.isEmpty() ? List.of() : Arrays.asList(members.split(",")));
    }
}
