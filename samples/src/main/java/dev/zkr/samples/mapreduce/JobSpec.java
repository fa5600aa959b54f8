package dev.zkr.samples.mapreduce;

import dev.zkr.client.ZkClient;

import java.util.LinkedHashMap;
import java.util.Map;

/** The job's parameters as stored in {@link Layout#job()}: what a master taking over needs to continue. */
record JobSpec(long seed, int inputBytes, int mapTasks, int reducers, int workers, long startedAtMillis) {

    byte[] encode() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seed", seed);
        m.put("inputBytes", inputBytes);
        m.put("mapTasks", mapTasks);
        m.put("reducers", reducers);
        m.put("workers", workers);
        m.put("startedAtMillis", startedAtMillis);
        return Nodes.utf8(Nodes.props(m));
    }

    static JobSpec read(ZkClient client, Layout layout) {
        Map<String, String> m = Nodes.props(Nodes.read(client, layout.job()));
        return new JobSpec(Long.parseLong(m.get("seed")), Integer.parseInt(m.get("inputBytes")),
                Integer.parseInt(m.get("mapTasks")), Integer.parseInt(m.get("reducers")),
                Integer.parseInt(m.get("workers")), Long.parseLong(m.get("startedAtMillis")));
    }

    int tasks(Phase phase) {
        return phase == Phase.MAP ? mapTasks : reducers;
    }
}
