package dev.zkr.consensus;

/** The role a replica plays in its current epoch. */
public enum Role { FOLLOWER, CANDIDATE, LEADER }
