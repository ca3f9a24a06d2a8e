import { afterEach, describe, expect, it } from "vitest";
import { describeDatabase, describePostgresUrl } from "@/server/db";
import { embeddedDatabaseDir } from "@/server/db-pglite";
import { resetEnvForTests } from "@/server/env";

describe("describeDatabase", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    resetEnvForTests();
  });

  function withEnv(vars: Record<string, string | undefined>) {
    for (const [k, v] of Object.entries(vars)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetEnvForTests();
  }

  it("shows host:port/database for PostgreSQL and never the credentials or parameters", () => {
    withEnv({
      DATABASE_URL: "postgresql://app_user:s3cr3t-p%40ss@db.example.com:6543/bellwether?sslmode=require&password=x",
    });
    const described = describeDatabase();
    expect(described).toEqual({ kind: "postgres", location: "db.example.com:6543/bellwether" });
    const text = JSON.stringify(described);
    for (const secret of ["app_user", "s3cr3t", "sslmode", "password"]) expect(text).not.toContain(secret);
  });

  it("defaults the port and handles unix-socket URLs without leaking the user", () => {
    expect(describePostgresUrl("postgres://u:p@localhost/db")).toBe("localhost:5432/db");
    expect(describePostgresUrl("postgresql:///db?host=/var/run/postgresql&user=u&password=p")).toBe(
      "/var/run/postgresql:5432/db",
    );
    expect(describePostgresUrl("postgresql://u:p@/db")).not.toContain("p@");
  });

  it("shows the embedded data directory, or that it is in memory", () => {
    withEnv({ DATABASE_URL: undefined, DATA_DIR: "/srv/bw", PGLITE_STORAGE: undefined });
    expect(describeDatabase()).toEqual({ kind: "embedded", location: embeddedDatabaseDir("/srv/bw") });
    withEnv({ PGLITE_STORAGE: "memory" });
    expect(describeDatabase().kind).toBe("embedded");
    expect(describeDatabase().location).toMatch(/memory/);
  });
});
