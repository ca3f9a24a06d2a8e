/**
 * The capabilities a tracker can be bound to, by name — what the public API and the UI accept. The server's registry
 * (server/capabilities/registry.ts) holds their descriptors; a test keeps the two lists the same
 * (docs/architecture.md "Adding a capability").
 */
export const CAPABILITY_NAMES = ["web.scrape", "maps.place", "web.pdf", "feed.items", "maps.search"] as const;
export type TCapabilityName = (typeof CAPABILITY_NAMES)[number];
