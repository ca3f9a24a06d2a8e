import { ensurePgliteTemplate } from "./db";

/** Vitest global setup: build the migrated PGlite template once, before workers race to build it. */
export default async function setup(): Promise<void> {
  await ensurePgliteTemplate();
}
