package dev.zkr.recipes;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Every recipe suite on a 3-server zkr ensemble (one ensemble per suite; the suites' server restarts and stops
 * take the whole ensemble down and up again). Clients spread over the servers, so recipes run through followers
 * (writes forwarded to the leader) and the leader alike. About two minutes on a loaded 2-core machine, so it runs
 * under {@code -Plong} only ({@code -Dzkr.recipes.ensembleSuites=true} runs it alone); the default build runs the
 * properties on the ensemble ({@link ZkrEnsembleRecipePropertiesTest}).
 */
@EnabledIfSystemProperty(named = "zkr.recipes.ensembleSuites", matches = "true")
class ZkrEnsembleSuitesTest {

    @Nested
    class Barrier extends BarrierSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class Counter extends CounterSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class Efficiency extends EfficiencySuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }

        @Override
        protected boolean eventsCarryData() {
            return true;
        }
    }

    @Nested
    class Group extends GroupSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class LeaderLatch extends LeaderLatchSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class LeaderSelector extends LeaderSelectorSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class PersistentNode extends PersistentNodeSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class Discovery extends DiscoverySuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class AsyncLock extends AsyncLockSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class Lock extends LockSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class MultiLock extends MultiLockSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class NodeCache extends NodeCacheSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class OrderedQueue extends OrderedQueueSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class Queue extends QueueSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class Revocation extends RevocationSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class Semaphore extends SemaphoreSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class SharedValue extends SharedValueSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class SimpleBarrier extends SimpleBarrierSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }

    @Nested
    class TreeCache extends TreeCacheSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ZkrEnsembleBackend.start();
        }
    }
}
