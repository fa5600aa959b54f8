package dev.zkr.apache.recipes;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.recipes.AsyncLockSuite;
import dev.zkr.recipes.BarrierSuite;
import dev.zkr.recipes.CounterSuite;
import dev.zkr.recipes.DiscoverySuite;
import dev.zkr.recipes.EfficiencySuite;
import dev.zkr.recipes.GroupSuite;
import dev.zkr.recipes.LeaderLatchSuite;
import dev.zkr.recipes.LeaderSelectorSuite;
import dev.zkr.recipes.LeasedLockSuite;
import dev.zkr.recipes.LockSuite;
import dev.zkr.recipes.MultiLockSuite;
import dev.zkr.recipes.NodeCacheSuite;
import dev.zkr.recipes.OrderedQueueSuite;
import dev.zkr.recipes.PersistentNodeSuite;
import dev.zkr.recipes.QueueSuite;
import dev.zkr.recipes.RecipeBackend;
import dev.zkr.recipes.RevocationSuite;
import dev.zkr.recipes.SemaphoreSuite;
import dev.zkr.recipes.SharedValueSuite;
import dev.zkr.recipes.SimpleBarrierSuite;
import dev.zkr.recipes.TreeCacheSuite;
import dev.zkr.recipes.ZkrEnsembleBackend;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Every recipe suite that runs zkr's recipes through {@link ApacheZkClient} on Apache ZooKeeper, run with the same
 * client on a 3-server zkr ensemble (ZooKeeper's client protocol on zkr's client port; one ensemble per suite, the
 * suites' server restarts take the whole ensemble down and up). Clients spread over the members, so requests are
 * forwarded from followers to the leader. A few minutes on a 2-core machine, so it runs under {@code -Plong}
 * ({@code -Dzkr.apache.onZkrSuites=true} runs it alone), with the recipe properties run this way
 * ({@link ApacheClientOnZkrRecipePropertiesTest}).
 */
@EnabledIfSystemProperty(named = "zkr.apache.onZkrSuites", matches = "true")
class ApacheClientOnZkrSuitesTest {

    private static RecipeBackend ensemble() {
        return ZkrEnsembleBackend.start(ApacheZkClient::connect);
    }

    @Nested
    class AsyncLock extends AsyncLockSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class Barrier extends BarrierSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class Counter extends CounterSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class Discovery extends DiscoverySuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class Efficiency extends EfficiencySuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class Group extends GroupSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class LeaderLatch extends LeaderLatchSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class LeaderSelector extends LeaderSelectorSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class LeasedLock extends LeasedLockSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class Lock extends LockSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class MultiLock extends MultiLockSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class NodeCache extends NodeCacheSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class OrderedQueue extends OrderedQueueSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class PersistentNode extends PersistentNodeSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class Queue extends QueueSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class Revocation extends RevocationSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class Semaphore extends SemaphoreSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class SharedValue extends SharedValueSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class SimpleBarrier extends SimpleBarrierSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }

    @Nested
    class TreeCache extends TreeCacheSuite {
        @Override
        protected RecipeBackend createBackend() {
            return ensemble();
        }
    }
}
