package dev.zkr.tree;

/** The projected state of one node that Prep validates against. */
record NodeRecord(int version, int cversion, int numChildren, long ephemeralOwner, boolean container) {

    NodeRecord withVersion(int v) {
        return new NodeRecord(v, cversion, numChildren, ephemeralOwner, container);
    }

    NodeRecord withChild(int cversionAfter, int delta) {
        return new NodeRecord(version, cversionAfter, numChildren + delta, ephemeralOwner, container);
    }
}
