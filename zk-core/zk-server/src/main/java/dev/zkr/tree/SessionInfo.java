package dev.zkr.tree;

import java.util.Arrays;

/**
 * A committed session as recorded in the {@link DataTree} (and therefore in snapshots): its id, negotiated timeout
 * and password. Liveness (deadlines) is not here: that is {@code dev.zkr.session.SessionTable}'s job.
 *
 * @param sessionId the session id
 * @param timeoutMs the negotiated session timeout
 * @param password  the session password (do not modify)
 */
public record SessionInfo(long sessionId, int timeoutMs, byte[] password) {

    @Override
    public boolean equals(Object o) {
        return o instanceof SessionInfo s && s.sessionId == sessionId && s.timeoutMs == timeoutMs
                && Arrays.equals(s.password, password);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(sessionId) * 31 + timeoutMs;
    }

    @Override
    public String toString() {
        return "SessionInfo[0x" + Long.toHexString(sessionId) + ", timeoutMs=" + timeoutMs + "]";
    }
}
