package dev.zkr.testkit.ensemble;

import dev.zkr.server.zookeeper.FirstFrame;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static dev.zkr.testkit.ensemble.Ensembles.await;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper's four-letter words on the members of a 3-server ensemble: the mode each reports (what
 * {@code zkServer.sh status} reads from {@code srvr}), the member lines of {@code conf}, and ZooKeeper's "not
 * serving" answer from a member that lost its quorum (while {@code ruok} still answers {@code imok}).
 */
@Timeout(120)
class FourLetterWordsEnsembleTest {

    private static String ask(TestEnsemble e, int server, String word) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), e.port(server))) {
            s.setSoTimeout((int) Ensembles.PATIENCE.toMillis());
            s.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
            }
            return out.toString(StandardCharsets.UTF_8);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Test
    void eachMemberReportsItsModeAndALoneMemberIsNotServing() {
        try (TestEnsemble e = TestEnsemble.builder().servers(3)
                .configure(b -> b.fourLetterWords(FirstFrame.knownWords())).start()) {
            int leader = Ensembles.settledLeader(e);
            String srvr = ask(e, leader, "srvr");
            assertTrue(srvr.contains("\nMode: leader\n") && srvr.contains("\nProposal sizes last/min/max: "), srvr);
            int[] followers = others(3, leader);
            for (int f : followers) {
                assertTrue(ask(e, f, "srvr").contains("\nMode: follower\n"));
            }
            String conf = ask(e, followers[0], "conf");
            assertTrue(conf.contains("\nserverId=" + (followers[0] + 1) + "\nmembership: \nserver.1=127.0.0.1:"), conf);
            assertTrue(ask(e, leader, "mntr").contains("\nzk_quorum_size\t3\n"));
            assertEquals("rw", ask(e, leader, "isro"));

            e.kill(leader);
            e.kill(followers[1]);
            int lone = followers[0];
            await("the lone member stops serving", () -> ask(e, lone, "srvr")
                    .equals("This ZooKeeper instance is not currently serving requests\n"));
            assertEquals("null", ask(e, lone, "isro"));
            assertEquals("imok", ask(e, lone, "ruok"));
        }
    }
}
