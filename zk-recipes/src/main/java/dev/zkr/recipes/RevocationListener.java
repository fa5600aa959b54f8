package dev.zkr.recipes;

/**
 * Told when someone asks the holder of a lease to give it up ({@link DistributedLock#requestRevocation()}).
 * Revocation is cooperative: the holder may finish or abort its work and close the lease, or ignore the request and
 * keep it. Called on the recipes' executor, once per request the holder sees.
 */
@FunctionalInterface
public interface RevocationListener {

    void revocationRequested(LockLease lease);
}
