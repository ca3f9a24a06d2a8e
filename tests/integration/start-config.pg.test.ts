import { afterAll, describe, expect, it } from "vitest";
import { describePostgresUrl } from "@/server/db-connection-error";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { runStart } from "../helpers/start-refusal";

/** `npm start` against a real PostgreSQL it cannot serve: refused before building, with what to do. */

describe.skipIf(!hasPostgres)("npm start with DATABASE_URL", () => {
  const created: TPostgresTestDb[] = [];
  afterAll(async () => {
    for (const t of created) await t.drop();
  });

  it("refuses a database without the schema, telling the operator to migrate", async () => {
    const t = await createPostgresTestDb({ migrate: false });
    created.push(t);
    const { code, stderr, stdout } = runStart({ DATABASE_URL: t.url });
    expect(code).toBe(1);
    expect(stderr.split("\n")).toHaveLength(1);
    expect(stderr).toBe(
      `The database at ${describePostgresUrl(t.url)} has no Bellwether schema yet. Run \`npm run db:migrate\` to apply them.`,
    );
    expect(stdout).not.toMatch(/building|starting on/);
  });

  it("does not wait for a database that does not exist: waiting cannot fix it", async () => {
    const t = await createPostgresTestDb({ migrate: false });
    created.push(t);
    const missing = t.url.replace(new RegExp(`/${t.database}$`), `/${t.database}_missing`);
    const { code, stderr, stdout } = runStart({ DATABASE_URL: missing, DATABASE_WAIT_MS: "60000" });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Cannot reach PostgreSQL at .*_missing \(DATABASE_URL\): the database does not exist/);
    expect(stderr).not.toMatch(/3D000|P\d{4}/);
    expect(stdout).not.toMatch(/Retrying/);
  });
});
