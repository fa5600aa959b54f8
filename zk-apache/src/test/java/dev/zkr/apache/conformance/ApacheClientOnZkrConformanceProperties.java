package dev.zkr.apache.conformance;

/**
 * {@link ConformanceProperties} with Apache ZooKeeper's own client on both sides: on a zkr server (ZooKeeper's client
 * protocol on zkr's client port) and on ZooKeeper. With the native client's run of the same properties this makes
 * the three ways: zkr's client on zkr, Apache's client on ZooKeeper, Apache's client on zkr. Its properties run 10
 * tries each in the default build (the native client's run does 25; a try with Apache's client on both sides costs
 * twice as much: every close of it sleeps 100 ms) and 200 under {@code -Plong}.
 */
@dev.zkr.recipes.ScaledTries(10)
class ApacheClientOnZkrConformanceProperties extends ConformanceProperties {
    @Override
    Backends startBackends() {
        return Backends.startApacheClientOnZkr(1);
    }
}
