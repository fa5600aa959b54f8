package dev.zkr.server.admin;

import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The recipes are recognised by the node layouts zk-recipes writes (pure logic over an in-memory tree). */
class RecipeScanTest {

    /** A tiny tree: path to (data, ephemeralOwner, czxid, ctime). */
    private final Map<String, Object[]> nodes = new HashMap<>();
    private long zxid = 100;

    private void node(String path, String data, long owner) {
        nodes.put(path, new Object[] {data, owner, zxid++, 1_000L + zxid});
    }

    private final RecipeScan.Tree tree = new RecipeScan.Tree() {
        @Override
        public List<String> children(String path) {
            if (!nodes.containsKey(path) && !path.equals("/")) {
                return null;
            }
            List<String> out = new ArrayList<>();
            String prefix = path.equals("/") ? "/" : path + "/";
            for (String p : nodes.keySet()) {
                if (p.startsWith(prefix) && p.indexOf('/', prefix.length()) < 0) {
                    out.add(p.substring(prefix.length()));
                }
            }
            return out;
        }

        @Override
        public NodeData node(String path) {
            Object[] n = nodes.get(path);
            if (n == null) {
                return null;
            }
            long czxid = (long) n[2];
            return new NodeData(((String) n[0]).getBytes(StandardCharsets.UTF_8), new Stat(czxid, czxid, czxid,
                    (long) n[3], (long) n[3], 0, 0, 0, (long) n[1], ((String) n[0]).length(), 0));
        }
    };

    private List<RecipeScan.Recipe> scan(String root) {
        return new RecipeScan(tree, 10_000).scan(root);
    }

    @Test
    void lockHolderIsTheLowestSequenceAndWaitersFollowInOrder() {
        node("/locks", "", 0);
        node("/locks/_c_0b6f9a43-3c3e-4a8f-9d1c-5f2e8c1d7a10-lock-0000000002", "c", 0x13);
        node("/locks/_c_8d1b2c3d-1111-2222-3333-444455556666-lock-0000000000", "a", 0x11);
        node("/locks/lock-0000000001", "b", 0x12);
        List<RecipeScan.Recipe> found = scan("/locks");
        assertEquals(1, found.size());
        RecipeScan.Recipe r = found.get(0);
        assertEquals("lock", r.kind());
        assertEquals(0x11, r.holders().get(0).owner());
        assertEquals(List.of(1L, 2L), r.waiters().stream().map(RecipeScan.Participant::sequence).toList());
        assertEquals(Long.toString(r.holders().get(0).czxid()), r.details().get("fencingToken"));
    }

    @Test
    void electionsBarriersGroupsQueuesAndReadWriteLocks() {
        node("/app", "", 0);
        node("/app/election", "", 0);
        node("/app/election/latch-0000000005", "node-b", 0x22);
        node("/app/election/latch-0000000004", "node-a", 0x21);
        node("/app/unfair", "", 0);
        node("/app/unfair/leader", "node-x", 0x31);
        node("/app/unfair/members", "", 0);
        node("/app/unfair/members/m-1", "", 0x31);
        node("/app/unfair/members/m-2", "", 0x32);
        node("/app/barrier", "", 0);
        node("/app/barrier/worker-1", "", 0x41);
        node("/app/barrier/worker-2", "", 0x42);
        node("/app/barrier/ready", "", 0);
        node("/app/group", "", 0);
        node("/app/group/member-a", "", 0x51);
        node("/app/queue", "", 0);
        node("/app/queue/item-6a1d", "job 1", 0);
        node("/app/queue/item-7b2e", "job 2", 0);
        node("/app/queue/claim-6a1d", "", 0x61);
        node("/app/queue-offers", "", 0);
        node("/app/queue-offers/92d361d9-4279-4f1b-9d6f-3e00094185a2", "6a1d", 0x62);
        node("/app/queue-offers/0b6f9a43-3c3e-4a8f-9d1c-5f2e8c1d7a10", "7b2e", 0x63);
        node("/app/rw", "", 0);
        node("/app/rw/read-0000000000", "", 0x71);
        node("/app/rw/read-0000000001", "", 0x72);
        node("/app/rw/write-0000000002", "", 0x73);
        node("/app/rw/read-0000000003", "", 0x74);
        Map<String, RecipeScan.Recipe> byPath = new HashMap<>();
        scan("/").forEach(r -> byPath.put(r.path(), r));

        RecipeScan.Recipe fair = byPath.get("/app/election");
        assertEquals("leader", fair.kind());
        assertEquals("node-a", fair.holders().get(0).data());
        assertEquals("fair", fair.details().get("mode"));
        RecipeScan.Recipe unfair = byPath.get("/app/unfair");
        assertEquals("leader", unfair.kind());
        assertEquals("node-x", unfair.holders().get(0).data());
        assertEquals(2, unfair.waiters().size(), "the participants");
        RecipeScan.Recipe barrier = byPath.get("/app/barrier");
        assertEquals("barrier", barrier.kind());
        assertEquals(2, barrier.holders().size());
        assertEquals("group", byPath.get("/app/group").kind());
        RecipeScan.Recipe queue = byPath.get("/app/queue");
        assertEquals("queue", queue.kind());
        assertEquals("2", queue.details().get("depth"));
        assertEquals("1", queue.details().get("claimed"));
        assertEquals("2", queue.details().get("producers"), "the producers' offer ledgers beside the queue");
        assertNull(byPath.get("/app/queue-offers"), "the ledgers are not a group of their own");
        RecipeScan.Recipe rw = byPath.get("/app/rw");
        assertEquals("rwlock", rw.kind());
        assertEquals(2, rw.holders().size(), "the readers before the writer");
        assertEquals(2, rw.waiters().size(), "the writer and the reader behind it");
        assertNull(byPath.get("/app"), "a plain parent is no recipe");
    }

    @Test
    void jsonEscapesQuotesControlsAndMarkup() {
        String json = new JsonWriter().beginObject().field("name", "<script>\"x\"\n\u0001&")
                .name("list").beginArray().value(1).value("a").endArray().endObject().toString();
        assertEquals("{\"name\":\"\\u003cscript\\u003e\\\"x\\\"\\n\\u0001\\u0026\",\"list\":[1,\"a\"]}", json);
    }
}
