package dev.zkr.chaos.workload;

import dev.zkr.client.ZkClient;

/** After healing: one client per member, each connected to that member only. */
public interface FinalReads {

    int servers();

    /** The client of member {@code i} (0-based); {@code sync} first for an up-to-date view of the ensemble's state. */
    ZkClient on(int i);

    /** The {@code server.N} id of member {@code i}, for messages. */
    int id(int i);
}
