/**
 * Service discovery (issue 32): register service instances, query them, watch a service with a
 * {@link dev.zkr.recipes.discovery.ServiceCache} and pick instances with a
 * {@link dev.zkr.recipes.discovery.ServiceProvider}, in the node layout and JSON of Curator's
 * {@code curator-x-discovery} 5.7.1, so zkr and Curator find each other's instances. An API package, reached from
 * {@link dev.zkr.recipes.Recipes#serviceDiscovery(String)}; the JSON codec ({@code Json}, {@code InstanceJson}) is
 * package-private.
 */
package dev.zkr.recipes.discovery;
