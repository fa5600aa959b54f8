package dev.zkr.tree;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.List;

/** "Fast agrees with naive": DataTree + TxnPreparer (pipelined) vs a sorted-map model, over random sequences. */
class ModelAgreementPropertiesTest {

    @Property
    void treeAndPreparerAgreeWithNaiveModel(@ForAll("steps") List<OpGen.Step> steps) {
        Driver d = new Driver(true);
        d.run(steps);
        d.tree.checkInvariants();
    }

    /** The same with TTL nodes: their creates (valid and invalid TTLs), expiry by cleanup steps, and its versions. */
    @Property
    void treeAndPreparerAgreeWithNaiveModelWithTtlNodes(@ForAll("ttlSteps") List<OpGen.Step> steps) {
        treeAndPreparerAgreeWithNaiveModel(steps);
    }

    @Provide
    Arbitrary<List<OpGen.Step>> steps() {
        return OpGen.steps();
    }

    @Provide
    Arbitrary<List<OpGen.Step>> ttlSteps() {
        return OpGen.steps(true);
    }
}
