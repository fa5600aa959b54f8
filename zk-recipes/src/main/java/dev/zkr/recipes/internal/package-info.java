/**
 * Internal, not API: helpers every recipe shares (deadlines and signals, retrying after ConnectionLoss, clean-up
 * that survives the connection, protected sequential names). Public only so the recipe packages can use them;
 * they may change in any release. Users import {@code dev.zkr.recipes}.
 */
package dev.zkr.recipes.internal;
