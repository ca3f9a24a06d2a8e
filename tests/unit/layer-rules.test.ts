import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { cruise } from "dependency-cruiser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The layer rules (.dependency-cruiser.cjs) fire on deliberately wrong imports: a tiny tree with the project's
 * folder names is cruised with the real rule set, and each bad arrow must be reported by the rule meant for it.
 */
const ruleSet = createRequire(import.meta.url)("../../.dependency-cruiser.cjs");

const FILES: Record<string, string> = {
  "server/env.ts": "export const env = 1;\n",
  "server/api/trpc.ts": 'import "../trackers/list";\nexport const t = 1;\n',
  "server/trackers/list.ts": 'import "../intelligence/refresh";\nexport const list = 1;\n',
  // Wrong: the hot loop (intelligence) reaching up into the feed.
  "server/intelligence/refresh.ts": 'import "../feed/notify";\nexport const refresh = 1;\n',
  "server/feed/notify.ts": 'import "../env";\nexport const notify = 1;\n',
  // Wrong: a domain importing the transport layer.
  "server/timeline/append.ts": 'import "../api/trpc";\nexport const append = 1;\n',
  // Wrong: the foundation importing a room.
  "server/db.ts": 'import "./users/local";\nexport const db = 1;\n',
  "server/users/local.ts": "export const local = 1;\n",
  // Wrong: UI importing server runtime code, or a server module's types (only the router's type is fine).
  "components/card.ts":
    'import "../server/feed/notify";\nimport type {} from "../server/env";\nimport type {} from "../server/api/root";\nexport const card = 1;\n',
  "server/api/root.ts": "export type AppRouter = 1;\n",
  // Wrong: contracts are client-safe.
  "contracts/schema.ts": 'import "../server/env";\nexport const schema = 1;\n',
  // Wrong: a cycle.
  "server/capabilities/a.ts": 'import "./b";\nexport const a = 1;\n',
  "server/capabilities/b.ts": 'import "./a";\nexport const b = 1;\n',
};

let dir = "";
const cwd = process.cwd();

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "layers-"));
  for (const [file, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
});

afterAll(() => {
  process.chdir(cwd);
  fs.rmSync(dir, { recursive: true, force: true });
});

async function violations(): Promise<string[]> {
  process.chdir(dir);
  const { tsConfig: _ts, enhancedResolveOptions: _r, ...options } = ruleSet.options;
  const result = await cruise(["server", "components", "contracts"], {
    ...options,
    validate: true,
    ruleSet: { forbidden: ruleSet.forbidden },
  });
  process.chdir(cwd);
  if (typeof result.output === "string") throw new Error(result.output);
  return result.output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
}

describe("layer rules", () => {
  it("report each wrong arrow with the rule meant for it, and nothing else", async () => {
    const found = await violations();
    const cycles = found.filter((v) => v.startsWith("no-circular: server/capabilities/"));
    expect(cycles.length).toBeGreaterThan(0);
    // Exactly the wrong arrows: the allowed ones (api → trackers → intelligence, feed → env, a type-only UI
    // import) are not reported.
    expect(found.filter((v) => !cycles.includes(v)).sort()).toEqual(
      [
        "layer-intelligence: server/intelligence/refresh.ts → server/feed/notify.ts",
        "domain-no-api: server/timeline/append.ts → server/api/trpc.ts",
        "layer-timeline-context-settings-users-usage-retention: server/timeline/append.ts → server/api/trpc.ts",
        "foundation-imports-no-room: server/db.ts → server/users/local.ts",
        "components-no-server-runtime: components/card.ts → server/feed/notify.ts",
        "components-types-from-contracts: components/card.ts → server/feed/notify.ts",
        "components-types-from-contracts: components/card.ts → server/env.ts",
        "contracts-client-safe: contracts/schema.ts → server/env.ts",
      ].sort(),
    );
  });
});
