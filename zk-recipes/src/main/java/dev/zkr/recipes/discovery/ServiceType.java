package dev.zkr.recipes.discovery;

/**
 * How an instance's node lives (Curator's {@code ServiceType}, same names in the JSON): {@code DYNAMIC} an ephemeral
 * node named by the instance id (gone with the registering session, kept present by the recipe while registered),
 * {@code DYNAMIC_SEQUENTIAL} an ephemeral-sequential one, {@code STATIC} and {@code PERMANENT} a persistent node.
 */
public enum ServiceType {
    DYNAMIC,
    STATIC,
    PERMANENT,
    DYNAMIC_SEQUENTIAL;

    /** True for the ephemeral kinds. */
    public boolean isDynamic() {
        return this == DYNAMIC || this == DYNAMIC_SEQUENTIAL;
    }
}
