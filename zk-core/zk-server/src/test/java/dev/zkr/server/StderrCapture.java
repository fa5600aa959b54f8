package dev.zkr.server;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Keeps a copy of what is written to System.err while open (the test logging binding, slf4j-simple, writes to the
 * current System.err), still passing it on. Closing restores the original stream.
 */
public final class StderrCapture implements AutoCloseable {

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    public StderrCapture() {
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

            @Override
            public void flush() {
                original.flush();
            }
        }, true, StandardCharsets.UTF_8));
    }

    /** Everything written so far. */
    public String text() {
        System.err.flush();
        synchronized (copy) {
            return copy.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
