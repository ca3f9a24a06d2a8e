/** Client-side mirrors of the setup event stream (server/intelligence/setup/types.ts); no server imports here. */
export type TChatMessage = {
  id: string;
  role: "user" | "assistant";
  parts: { type: "text"; text: string }[];
  metadata?: { kind?: "text" | "question" | "error" | "info" };
};

export type TDraftView = {
  fields: { name: string; type: string; unit: string | null; description: string; extractor: string | null }[];
  identity: string | null;
  rules: string[];
};

export type TSetupEvent =
  | { type: "message"; message: TChatMessage }
  | { type: "assistant-delta"; id: string; text: string }
  | { type: "status"; text: string }
  | { type: "sample"; sample: unknown; target: string }
  | { type: "draft-partial"; draft: TDraftView }
  | { type: "draft"; draft: TDraftView; version: number }
  | { type: "locked"; trackerId: string; version: number }
  | { type: "done" };

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
