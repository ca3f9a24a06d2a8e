import { readFileSync } from "node:fs";
import type { TRecordingInput } from "../fixtures/model-server/recordings";

/**
 * The drafter's recorded conversation (tests/fixtures/model-server/recordings/setup-drafter.json).
 * Tool-call arguments name the fixture site's URL, which depends on the port, so the file says
 * __SITE__ and this substitutes the real origin.
 */
export function setupRecordings(siteOrigin: string): TRecordingInput[] {
  const file = new URL("../fixtures/model-server/recordings/setup-drafter.json", import.meta.url);
  const text = readFileSync(file, "utf8").replaceAll("__SITE__", siteOrigin);
  return (JSON.parse(text) as { recordings: TRecordingInput[] }).recordings;
}
