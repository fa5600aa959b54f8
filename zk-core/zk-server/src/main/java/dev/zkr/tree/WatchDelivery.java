package dev.zkr.tree;

import dev.zkr.client.WatchedEvent;

/**
 * One watch event to send to one session.
 *
 * @param sessionId the receiving session
 * @param event     the event
 */
public record WatchDelivery(long sessionId, WatchedEvent event) {
}
