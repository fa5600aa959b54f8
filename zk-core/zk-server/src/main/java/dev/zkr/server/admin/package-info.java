/**
 * The admin endpoint: {@link dev.zkr.server.admin.AdminServer} (its HTTP port and {@code zkr-admin} thread), {@code
 * AdminHandler} (routes, the console's files from {@code dev/zkr/server/admin/console/}), {@code AdminAuth} (who
 * sees what), {@code AdminView} (the JSON views, read inside rounds through {@code Core.query}), {@code RecipeScan},
 * {@code JsonWriter}, {@code ServerState} and {@link dev.zkr.server.admin.ServerMetrics} (Prometheus). docs/
 * admin-endpoint.md.
 */
package dev.zkr.server.admin;
