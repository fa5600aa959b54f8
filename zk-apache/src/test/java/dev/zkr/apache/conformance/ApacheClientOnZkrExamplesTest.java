package dev.zkr.apache.conformance;

/** {@link ConformanceExamplesTest}'s fixed cases with Apache ZooKeeper's client on a zkr server and on ZooKeeper. */
class ApacheClientOnZkrExamplesTest extends ConformanceExamplesTest {
    @Override
    Backends startBackends() {
        return Backends.startApacheClientOnZkr(1);
    }
}
