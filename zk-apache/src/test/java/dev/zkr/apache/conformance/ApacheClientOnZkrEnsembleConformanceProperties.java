package dev.zkr.apache.conformance;

/**
 * {@link ConformanceProperties} with Apache ZooKeeper's client on a 3-server zkr ensemble (each client picks a
 * member from the connect string, so requests go through followers, forwarded to the leader, and through the
 * leader) against the same client on ZooKeeper.
 * Under {@code -Plong} only (zk-apache's pom leaves it out of the default build, for its time).
 */
class ApacheClientOnZkrEnsembleConformanceProperties extends ConformanceProperties {
    @Override
    Backends startBackends() {
        return Backends.startApacheClientOnZkr(3);
    }
}
