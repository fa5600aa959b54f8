package dev.zkr.recipes;

import dev.zkr.client.ZkClient;

import java.time.Duration;

/** Makes a connected client of the servers in a connect string: how a zkr backend gets clients other than its own. */
@FunctionalInterface
public interface ClientMaker {
    ZkClient connect(String connectString, Duration sessionTimeout);
}
