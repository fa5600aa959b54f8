package dev.zkr.recipes;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Recipe suites on a 3-server zkr ensemble that changed shape before each suite (issue 29: "the recipes' suites run
 * once across a membership change"): a fourth server joined live and became a voter, then the leader was removed
 * ({@link ZkrEnsembleBackend#startReshaped}), so the recipes run on a joined member and a leader elected after the
 * change, and the suites' restarts bring back members whose membership lives only in their data directories. Under
 * {@code -Plong} with the ensemble suites ({@code -Dzkr.recipes.ensembleSuites=true}).
 */
@EnabledIfSystemProperty(named = "zkr.recipes.ensembleSuites", matches = "true")
class ZkrReshapedEnsembleSuitesTest {

    @Nested
    class Lock extends LockSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.startReshaped();
        }
    }

    @Nested
    class LeaderLatch extends LeaderLatchSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.startReshaped();
        }
    }

    @Nested
    class Queue extends QueueSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.startReshaped();
        }
    }

    @Nested
    class Counter extends CounterSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.startReshaped();
        }
    }

    @Nested
    class Group extends GroupSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.startReshaped();
        }
    }

    @Nested
    class Barrier extends BarrierSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.startReshaped();
        }
    }
}
