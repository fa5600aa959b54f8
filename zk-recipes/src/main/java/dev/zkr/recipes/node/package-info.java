/**
 * Internal, not API: the machinery of {@link dev.zkr.recipes.PersistentNode} ({@code NodeKeeper}, public only for
 * the facade) and {@code TtlToucher} (its TTL variant). Users import {@code dev.zkr.recipes}.
 */
package dev.zkr.recipes.node;
