package dev.zkr.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A byte relay in front of a server's admin port, for the console's browser test: the browser loads the console
 * through it, and it runs a hook just before it forwards the page's second {@code /api/status} request — the start
 * of the console's second refresh, after the first one was answered in full and shown. The hook's changes are made
 * before that refresh reads anything, so the page can only show them by polling (no sleeps, no timing guesses). It
 * also keeps each answer it relayed, so the test can check what the first refresh saw.
 */
final class ConsoleRelay implements AutoCloseable {

    /** One request relayed: its request line and the whole answer (headers and body). */
    record Exchange(String requestLine, String answer) {
    }

    private final ServerSocket socket;
    private final int adminPort;
    private final Runnable beforeSecondRefresh;
    private final AtomicInteger statusRequests = new AtomicInteger();
    private final AtomicReference<Throwable> hookFailure = new AtomicReference<>();
    private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private final String authorization;

    ConsoleRelay(int adminPort, Runnable beforeSecondRefresh) throws IOException {
        this(adminPort, beforeSecondRefresh, null);
    }

    /**
     * A relay that also adds this {@code Authorization} header to every request that has none: the requests the
     * console makes once a user logged in with its form.
     */
    ConsoleRelay(int adminPort, Runnable beforeSecondRefresh, String authorization) throws IOException {
        this.authorization = authorization;
        this.adminPort = adminPort;
        this.beforeSecondRefresh = beforeSecondRefresh;
        this.socket = new ServerSocket();
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.acceptor = new Thread(this::accept, "console-relay");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The console's URL through the relay. */
    String url() {
        return "http://127.0.0.1:" + socket.getLocalPort() + "/";
    }

    /** The {@code /api/status} requests seen: 1 per refresh of the page. */
    int refreshes() {
        return statusRequests.get();
    }

    /** The hook's failure, if it threw. */
    Throwable hookFailure() {
        return hookFailure.get();
    }

    /** The answer to the first request whose line starts with {@code GET path}, or null. */
    String firstAnswer(String path) {
        return exchanges.stream().filter(e -> e.requestLine().startsWith("GET " + path)).map(Exchange::answer)
                .findFirst().orElse(null);
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                Socket browser = socket.accept();
                Thread t = new Thread(() -> relay(browser), "console-relay-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void relay(Socket browser) {
        try (browser; Socket admin = new Socket(InetAddress.getLoopbackAddress(), adminPort)) {
            byte[] head = readHead(browser.getInputStream());
            if (head.length == 0) {
                return;
            }
            String head0 = new String(head, StandardCharsets.ISO_8859_1);
            String requestLine = head0.substring(0, Math.max(0, head0.indexOf("\r\n")));
            if (requestLine.startsWith("GET /api/status") && statusRequests.incrementAndGet() == 2) {
                try {
                    beforeSecondRefresh.run();
                } catch (Throwable t) {
                    hookFailure.set(t);
                }
            }
            if (authorization != null && !head0.toLowerCase(java.util.Locale.ROOT).contains("\r\nauthorization:")) {
                head = (head0.substring(0, head0.length() - 2) + "Authorization: " + authorization + "\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1);
            }
            admin.getOutputStream().write(head); // console reads are GETs: no body
            admin.getOutputStream().flush();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = admin.getInputStream();
            OutputStream out = browser.getOutputStream();
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) > 0; ) { // the admin endpoint closes the connection after each answer
                answer.write(buf, 0, n);
                out.write(buf, 0, n);
            }
            out.flush();
            exchanges.add(new Exchange(requestLine, answer.toString(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            // the browser went away: nothing to relay
        }
    }

    /** The request's line and headers, through the empty line (empty if the connection closed first). */
    private static byte[] readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        for (int b; matched < 4 && (b = in.read()) >= 0; ) {
            head.write(b);
            matched = b == end[matched] ? matched + 1 : b == '\r' ? 1 : 0;
        }
        return matched == 4 ? head.toByteArray() : new byte[0];
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
