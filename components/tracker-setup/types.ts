/** The setup event stream's types (type-only imports from the server: nothing server-side reaches the bundle). */
import type { TSetupEvent, TSetupMessage } from "@/server/intelligence/setup/types";

export type { TDraftView, TSetupEvent } from "@/server/intelligence/setup/types";
export type TChatMessage = TSetupMessage;

/** Reads an NDJSON response body, calling onEvent per line. */
export async function readEvents(res: Response, onEvent: (event: TSetupEvent) => void): Promise<void> {
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line) onEvent(JSON.parse(line) as TSetupEvent);
      nl = buffer.indexOf("\n");
    }
  }
}
