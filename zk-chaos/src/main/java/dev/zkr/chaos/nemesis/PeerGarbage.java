package dev.zkr.chaos.nemesis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Bad input on a server's peer port, sent straight to its real port (not through a proxy): random bytes, a frame
 * whose length field claims 2 GiB, and a frame cut short by a close. Reports for each whether the server closed
 * the connection within {@value #CLOSE_WAIT_MS} ms, which is what it should do.
 */
final class PeerGarbage {

    static final int CLOSE_WAIT_MS = 10_000;

    private PeerGarbage() {
    }

    /** Sends the three kinds of bad input to {@code port}; one line per attempt. */
    static List<String> send(int port, Random random) {
        List<String> results = new ArrayList<>();
        byte[] garbage = new byte[4096];
        random.nextBytes(garbage);
        results.add("garbage: " + attempt(port, garbage, true));
        byte[] oversized = new byte[64];
        oversized[0] = 0x7f;
        oversized[1] = (byte) 0xff;
        oversized[2] = (byte) 0xff;
        oversized[3] = (byte) 0xff;
        results.add("oversized frame: " + attempt(port, oversized, true));
        byte[] truncated = new byte[14];
        truncated[3] = 100;
        results.add("truncated frame: " + attempt(port, truncated, false));
        return results;
    }

    /** Writes {@code bytes}; if {@code waitForClose}, reads until the server closes or the wait ends. */
    private static String attempt(int port, byte[] bytes, boolean waitForClose) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
            OutputStream out = s.getOutputStream();
            try {
                out.write(bytes);
                out.flush();
            } catch (IOException closedEarly) {
                return "closed by the server while sending";
            }
            if (!waitForClose) {
                return "sent and closed by us";
            }
            s.setSoTimeout(CLOSE_WAIT_MS);
            InputStream in = s.getInputStream();
            byte[] sink = new byte[1024];
            try {
                while (in.read(sink) >= 0) {
                    // the server may answer (e.g. a Hello) before closing
                }
                return "closed by the server";
            } catch (SocketTimeoutException open) {
                return "STILL OPEN after " + CLOSE_WAIT_MS + " ms";
            } catch (IOException reset) {
                return "reset by the server";
            }
        } catch (IOException e) {
            return "could not connect: " + e.getMessage();
        }
    }
}
