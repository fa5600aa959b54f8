package dev.zkr.tree;

import dev.zkr.client.WatchedEvent;

/**
 * One watch event to send to one session.
 *
 * @param sessionId the receiving session
 * @param event     the event
 * @param acl       the ACL the session needs READ in to get it (see {@link WatchTrigger#acl()}), or null for none;
 *                  not part of the delivery's identity
 * @param withData  a created or data-changed event through a watch set with data: the server sends the node's
 *                  data and Stat with it
 */
public record WatchDelivery(long sessionId, WatchedEvent event, java.util.List<dev.zkr.client.Acl> acl,
                            boolean withData) {

    /** A delivery without ACL check. */
    public WatchDelivery(long sessionId, WatchedEvent event) {
        this(sessionId, event, null, false);
    }

    /** A delivery without the node's data. */
    public WatchDelivery(long sessionId, WatchedEvent event, java.util.List<dev.zkr.client.Acl> acl) {
        this(sessionId, event, acl, false);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WatchDelivery d && d.sessionId == sessionId && d.event.equals(event)
                && d.withData == withData;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(sessionId, event, withData);
    }

    @Override
    public String toString() {
        return "WatchDelivery[0x" + Long.toHexString(sessionId) + ", " + event + (withData ? ", with data]" : "]");
    }
}
