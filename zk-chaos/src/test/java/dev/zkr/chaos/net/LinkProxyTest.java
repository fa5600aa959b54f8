package dev.zkr.chaos.net;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A cut link holds bytes both ways and passes them on when healed; a close crosses only an open link. */
class LinkProxyTest {

    @Test
    void cutHoldsBytesBothWaysAndHealDeliversThem() throws Exception {
        try (ServerSocket target = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
             LinkProxy proxy = LinkProxy.start(0, 1, target.getLocalPort());
             Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
             Socket server = target.accept()) {
            server.setSoTimeout(300);
            client.setSoTimeout(300);
            OutputStream out = client.getOutputStream();
            out.write(1);
            assertEquals(1, server.getInputStream().read(), "an open link passes bytes");

            proxy.cut();
            out.write(2);
            server.getOutputStream().write(3);
            assertThrows(SocketTimeoutException.class, () -> server.getInputStream().read(), "held while cut");
            assertThrows(SocketTimeoutException.class, () -> client.getInputStream().read(), "held while cut");

            proxy.heal();
            server.setSoTimeout(5_000);
            client.setSoTimeout(5_000);
            assertEquals(2, server.getInputStream().read(), "delivered after healing");
            assertEquals(3, client.getInputStream().read(), "delivered after healing");
        }
    }

    @Test
    void aCloseDuringACutArrivesOnlyAfterHealing() throws Exception {
        try (ServerSocket target = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
             LinkProxy proxy = LinkProxy.start(0, 1, target.getLocalPort())) {
            Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
            try (Socket server = target.accept()) {
                proxy.cut();
                client.getOutputStream().write(new byte[] {7, 8});
                client.close();
                server.setSoTimeout(300);
                InputStream in = server.getInputStream();
                assertThrows(SocketTimeoutException.class, in::read, "neither bytes nor the close cross a cut");
                proxy.heal();
                server.setSoTimeout(5_000);
                byte[] got = in.readNBytes(2);
                assertArrayEquals(new byte[] {7, 8}, got);
                assertEquals(-1, in.read(), "then the close");
            }
        }
    }

    @Test
    void aConnectionMadeDuringACutReachesTheServerOnlyAfterHealing() throws Exception {
        try (ServerSocket target = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
             LinkProxy proxy = LinkProxy.start(0, 1, target.getLocalPort())) {
            proxy.cut();
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
                client.getOutputStream().write(9);
                target.setSoTimeout(300);
                assertThrows(SocketTimeoutException.class, target::accept, "not connected while cut");
                proxy.heal();
                target.setSoTimeout(5_000);
                try (Socket server = target.accept()) {
                    server.setSoTimeout(5_000);
                    assertEquals(9, server.getInputStream().read());
                }
            }
        }
    }

    @Test
    void aTargetThatStartsListeningWithinTheWaitIsReachedNotHungUpOn() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort(); // free again: nobody listens there for now
        }
        try (LinkProxy proxy = LinkProxy.start(0, 1, port);
             Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            client.getOutputStream().write(5);
            Thread.sleep(LinkProxy.TARGET_WAIT_MS / 4); // the target opens its port a moment later (a new leader)
            try (ServerSocket target = new ServerSocket(port, 5, InetAddress.getLoopbackAddress())) {
                target.setSoTimeout(5_000);
                try (Socket server = target.accept()) {
                    server.setSoTimeout(5_000);
                    assertEquals(5, server.getInputStream().read());
                }
            }
        }
    }

    @Test
    void aTargetThatNeverListensResetsTheDiallerAfterTheWait() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        try (LinkProxy proxy = LinkProxy.start(0, 1, port);
             Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            client.setSoTimeout((int) LinkProxy.TARGET_WAIT_MS * 5);
            long t0 = System.nanoTime();
            assertThrows(java.net.SocketException.class, () -> client.getInputStream().read(), "reset, not EOF");
            assertTrue(System.nanoTime() - t0 >= LinkProxy.TARGET_WAIT_MS * 1_000_000L / 2, "after the wait");
        }
    }
}
