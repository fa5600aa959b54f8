package dev.zkr.client.netty;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.TimeUnit;

/**
 * The NIO event loop group shared by every native client of the JVM (daemon threads), created by the first
 * client and shut down when the last one closes, so closed clients leave no thread behind.
 */
final class EventLoops {

    private static EventLoopGroup group;
    private static int users;

    private EventLoops() {
    }

    /** One event loop of the shared group for a new client; pair with {@link #release}. */
    static synchronized EventLoop acquire() {
        if (group == null) {
            int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
            group = new NioEventLoopGroup(threads, new DefaultThreadFactory("zkr-client-io", true));
        }
        users++;
        return group.next();
    }

    /** Gives back a loop; the last user shuts the group down and waits (briefly) for its threads. */
    static void release() {
        EventLoopGroup toStop;
        synchronized (EventLoops.class) {
            if (--users > 0 || group == null) {
                return;
            }
            toStop = group;
            group = null;
        }
        toStop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
}
