import { createHash } from "node:crypto";
import type { TFeedItem } from "@/contracts/feed-item";
import { canonicalJson } from "@/server/lib/canonical-json";

export type THarnessInput = {
  items: { id: string; type: string; data: Record<string, unknown>; slots: Record<string, string> }[];
  userMemory: string;
};

/** Only items with slots go to the model; slot descriptions replace the slot objects. */
export function buildHarnessInput(items: TFeedItem[], memory: string): THarnessInput {
  return {
    items: items
      .filter((item) => item.slots && Object.keys(item.slots).length > 0)
      .map((item) => ({
        id: item.id,
        type: item.type,
        data: item.data,
        slots: Object.fromEntries(Object.entries(item.slots ?? {}).map(([name, s]) => [name, s.description])),
      })),
    userMemory: memory,
  };
}

/** Hash gate over item ids + data + slot descriptions + user memory (not the time: it changes every call). */
export function hashHarnessInput(input: THarnessInput): string {
  return createHash("sha256").update(canonicalJson(input)).digest("hex").slice(0, 32);
}
