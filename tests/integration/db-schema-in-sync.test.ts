import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("prisma/schema.prisma and the committed migrations", () => {
  it("describe the same schema (a schema change without its migration fails here)", { timeout: 180_000 }, () => {
    // Replays the migrations into a throwaway in-memory PGlite and diffs against the schema file.
    const result = spawnSync(
      process.execPath,
      [
        "scripts/prisma/cli.mjs",
        "migrate",
        "diff",
        "--from-migrations",
        "prisma/migrations",
        "--to-schema",
        "prisma/schema.prisma",
        "--exit-code",
      ],
      { cwd: process.cwd(), encoding: "utf8", env: { ...process.env, DATABASE_URL: "", PGLITE_STORAGE: "memory" } },
    );
    const output = `${result.stdout}${result.stderr}`;
    expect(output, "run `npm run db:migrate:dev -- --name <change>` to add the missing migration").toContain(
      "No difference detected",
    );
    expect(result.status).toBe(0);
  });
});
