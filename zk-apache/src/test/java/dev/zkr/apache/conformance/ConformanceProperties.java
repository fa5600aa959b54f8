package dev.zkr.apache.conformance;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Differential properties: random sequences of operations run on a zkr server and on Apache ZooKeeper side by side
 * must give the same results, error codes, Stats (zxids by order), watch events in the same order, and the same
 * final tree. Tries come from {@code jqwik.tries.default} (25 by default, 500 under {@code -Plong}).
 */
class ConformanceProperties {

    /** One Backends per property class (a subclass compares other servers), started on its first try. */
    private static final Map<Class<?>, Backends> STARTED = new ConcurrentHashMap<>();

    /** The servers and clients compared; subclasses run the same properties with Apache's client on zkr. */
    Backends startBackends() {
        return Backends.start();
    }

    private Backends backends() {
        return STARTED.computeIfAbsent(getClass(), c -> startBackends());
    }

    @AfterContainer
    static void stop() {
        for (Class<?> c : List.copyOf(STARTED.keySet())) {
            Backends b = STARTED.remove(c);
            if (b != null) {
                b.close();
            }
        }
    }

    /** Every kind of step: creates in every mode, versioned writes, multis, reads with watches, sessions closing. */
    @Property(shrinking = ShrinkingMode.FULL)
    void zkrAgreesWithZooKeeper(@ForAll("sequences") List<Step> steps) {
        Differential.run(backends(), steps);
    }

    @Provide
    Arbitrary<List<Step>> sequences() {
        return Gen.steps(40);
    }

    /** Weighted towards watches of every kind, ephemerals of a second session, its close, and containers. */
    @Property(shrinking = ShrinkingMode.FULL)
    void watchEventsAgree(@ForAll("watchSequences") List<Step> steps) {
        Differential.run(backends(), steps);
    }

    @Provide
    Arbitrary<List<Step>> watchSequences() {
        return Gen.watchSteps(40);
    }

    /**
     * Weighted towards ACLs and authentication: creates with restrictive ACLs, setAcl with aversions, getAcl,
     * digest authentication of either session, and ordinary operations meeting those ACLs.
     */
    @Property(shrinking = ShrinkingMode.FULL)
    void aclStepsAgree(@ForAll("aclSequences") List<Step> steps) {
        Differential.run(backends(), steps);
    }

    @Provide
    Arbitrary<List<Step>> aclSequences() {
        return Gen.aclSteps(40);
    }
}
