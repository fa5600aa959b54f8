package dev.zkr.apache;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.ZkClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

/** The connection state listeners of one client; each runs on its executor, or inline (the event thread). */
final class ConnectionListeners {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionListeners.class);

    private record Registration(ConnectionStateListener listener, Executor executor) {
    }

    private final CopyOnWriteArrayList<Registration> registrations = new CopyOnWriteArrayList<>();

    void add(ConnectionStateListener listener, Executor executor) {
        registrations.add(new Registration(Objects.requireNonNull(listener, "listener"), executor));
    }

    void remove(ConnectionStateListener listener) {
        registrations.removeIf(r -> r.listener() == listener);
    }

    void fire(ZkClient client, ConnectionState state) {
        for (Registration r : registrations) {
            Runnable call = () -> {
                try {
                    r.listener().stateChanged(client, state);
                } catch (RuntimeException e) {
                    LOG.warn("Connection state listener {} failed on {}", r.listener(), state, e);
                }
            };
            if (r.executor() == null) {
                call.run();
            } else {
                try {
                    r.executor().execute(call);
                } catch (RuntimeException e) {
                    LOG.warn("Executor of connection state listener {} refused {}", r.listener(), state, e);
                }
            }
        }
    }
}
