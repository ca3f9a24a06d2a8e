import type { TDraftView } from "@/contracts/setup-ui-message";
import { getEnv } from "../../env";

/** The three web.scrape read modes in the card's words (docs/page-reading.md, "Pages that need a browser"). */
export const READ_MODE_TEXT = {
  auto: { short: "automatically (render: auto)" },
  always: { short: "always in a browser (render: always)" },
  never: { short: "with a plain fetch only (render: never)" },
} as const;

export const lockedSampleNote =
  "The definition stays as it is; check the fields on the card read what you expect, then press Lock.";

/** Whether this server can render pages at all (a browser to launch or connect to). */
export function browserConfigured(): boolean {
  const env = getEnv();
  return Boolean(env.BROWSER_EXECUTABLE_PATH || env.BROWSER_WS_ENDPOINT);
}

/** The card's read-mode control for a web page: the tracker's `render` and whether a browser is there to use. */
export function readModeView(target: { capability: string; input: unknown }): TDraftView["readMode"] | null {
  if (target.capability !== "web.scrape" || typeof target.input !== "object" || target.input === null) return null;
  const render = (target.input as { render?: unknown }).render;
  const mode = render === "always" || render === "never" ? render : "auto";
  return { mode, browser: browserConfigured() };
}
