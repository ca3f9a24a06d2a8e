import { createOpenAI } from "@ai-sdk/openai";
import type { TLanguageModel } from "@/server/ai";
import { makeCapabilityConfig, type TBrowserConfig, type TCapabilityConfig } from "@/server/capabilities";
import type { TDb } from "@/server/db";
import { createTracker, lockDefinition, saveDraftDefinition } from "@/server/trackers";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { findChromium } from "../e2e/chromium";

/** Creates the local user's tracker, saves the definition and locks it: an active tracker at v1. */
export async function createActiveTracker(
  db: TDb,
  input: { capability: string; capabilityInput: unknown; definition: unknown; decision?: string; userId?: string },
) {
  const userId = input.userId ?? (await ensureLocalUser(db)).id;
  const tracker = await createTracker(db, {
    userId,
    decision: input.decision ?? "Is this competitor pulling ahead?",
    capability: input.capability,
    capabilityInput: input.capabilityInput,
  });
  await saveDraftDefinition(db, { userId, trackerId: tracker.id, definition: input.definition });
  const locked = await lockDefinition(db, { userId, trackerId: tracker.id });
  return { userId, tracker: locked.tracker };
}

/** The real @ai-sdk/openai client pointed at the fixture model server (chat completions, like local servers). */
export function fixtureModel(baseURL: string): TLanguageModel {
  return createOpenAI({ baseURL, apiKey: "test-key" }).chat("fixture-model");
}

/** Capability config that may reach the local fixture servers. */
export function localCapabilityConfig(
  urls: string[],
  overrides: {
    timeoutMs?: number;
    maxBytes?: number;
    maxRedirects?: number;
    mapsBaseUrl?: string;
    mapsApiKey?: string;
  } = {},
): TCapabilityConfig {
  const allowHosts = urls.map((u) => new URL(u).host);
  return makeCapabilityConfig({
    fetch: {
      allowHosts,
      ...(overrides.timeoutMs !== undefined
        ? { timeoutMs: overrides.timeoutMs, headersTimeoutMs: overrides.timeoutMs }
        : {}),
      ...(overrides.maxBytes !== undefined ? { maxBytes: overrides.maxBytes } : {}),
      ...(overrides.maxRedirects !== undefined ? { maxRedirects: overrides.maxRedirects } : {}),
    },
    maps: {
      ...(overrides.mapsBaseUrl ? { baseUrl: overrides.mapsBaseUrl } : {}),
      ...(overrides.mapsApiKey ? { apiKey: overrides.mapsApiKey } : {}),
    },
  });
}

export { cssPriceDefinition } from "../fixtures/price-definition";

/** A page for `cssPriceDefinition`: the price in `#price`, and a fresh nonce so every render is byte-different. */
export function priceBody(price: string): string {
  return `<main><span id="price">${price}</span><script nonce="${Math.random()}">x</script></main>`;
}

/**
 * The browser for rendering tests (docs/page-reading.md, "Pages that need a browser"): the system Chromium (CHROMIUM_PATH, /usr/bin/chromium…), never
 * installed from here. Undefined (and a printed reason) where none exists: those tests skip with that message.
 */
export function testBrowserConfig(overrides: Partial<TBrowserConfig> = {}): TBrowserConfig | undefined {
  let executablePath: string;
  try {
    executablePath = findChromium({ install: false });
  } catch (error) {
    process.stderr.write(`[render tests] skipped: ${(error as Error).message}\n`);
    return undefined;
  }
  return {
    executablePath,
    concurrency: 2,
    pageTimeoutMs: 15_000,
    restartAfterPages: 50,
    networkIdleCapMs: 1_500,
    ...overrides,
  };
}
