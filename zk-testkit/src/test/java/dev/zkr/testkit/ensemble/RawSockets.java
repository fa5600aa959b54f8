package dev.zkr.testkit.ensemble;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.fail;

/** Raw sockets that send bytes and expect the server to close, and a capture of the log (slf4j-simple, stderr). */
final class RawSockets {

    private RawSockets() {
    }

    /** A 4-byte length prefix and the body. */
    static byte[] frame(byte[] body) {
        return ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
    }

    /**
     * Connects (from {@code from}, null = any local address), sends the bytes, and waits for the server to close
     * the connection (failing after 10 s). Returns the local port the server saw.
     */
    static int sendAndExpectClose(InetSocketAddress to, InetSocketAddress from, String what, byte[] bytes)
            throws IOException {
        try (Socket s = new Socket()) {
            if (from != null) {
                s.bind(from);
            }
            s.connect(to, 5000);
            s.setSoTimeout(10_000);
            int local = s.getLocalPort();
            OutputStream out = s.getOutputStream();
            try {
                out.write(bytes);
                out.flush();
            } catch (SocketException closedAlready) {
                return local;
            }
            InputStream in = s.getInputStream();
            try {
                while (in.read() >= 0) {
                    // an error message or an alert may come before the close
                }
            } catch (SocketException reset) {
                // closed with a reset: closed too
            } catch (SocketTimeoutException t) {
                fail(what + ": the server kept the connection open");
            }
            return local;
        }
    }

    /** Copies everything written to System.err while open (slf4j-simple writes there). */
    static final class LogCapture implements AutoCloseable {
        private final PrintStream original = System.err;
        private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

        LogCapture() {
            System.setErr(new PrintStream(new OutputStream() {
                @Override
                public void write(int b) {
                    synchronized (copy) {
                        copy.write(b);
                    }
                    original.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    synchronized (copy) {
                        copy.write(b, off, len);
                    }
                    original.write(b, off, len);
                }
            }, true, StandardCharsets.UTF_8));
        }

        /** Lines logged so far that contain {@code text}. */
        List<String> lines(String text) {
            System.err.flush();
            String all;
            synchronized (copy) {
                all = copy.toString(StandardCharsets.UTF_8);
            }
            return all.lines().filter(l -> l.contains(text)).toList();
        }

        @Override
        public void close() {
            System.setErr(original);
        }
    }
}
