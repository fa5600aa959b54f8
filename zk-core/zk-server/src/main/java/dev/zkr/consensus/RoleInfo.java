package dev.zkr.consensus;

/**
 * What a replica is: its role, the leader it follows (-1 unknown; its own id when leading), its accepted epoch and
 * whether it is an in-service leader (its {@code EPOCH} record committed: it may propose and answer reads).
 */
public record RoleInfo(Role role, int leaderId, long epoch, boolean inService) {}
