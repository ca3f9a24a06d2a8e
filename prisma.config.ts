import path from "node:path";
import { defineConfig } from "prisma/config";
import { embeddedDatabaseDir } from "./server/db-pglite";
import { getEnv, type TEnv } from "./server/env";

// Prisma 7 does not read .env itself; load it when present so the CLI sees the same DATABASE_URL as the app.
for (const file of [".env.local", ".env"]) {
  try {
    process.loadEnvFile(file);
  } catch {
    // no such file: nothing to load
  }
}

/**
 * The CLI reaches the database through scripts/prisma/schema-engine-wasm-shim.mjs (always run it via
 * `node scripts/prisma/cli.mjs …`), which understands `postgresql://…` and `pglite:<dir>`
 * (`pglite:` alone = a throwaway in-memory database). Without DATABASE_URL the CLI works on the
 * embedded database, like the app does.
 */
function datasourceUrl(): string | undefined {
  let env: TEnv;
  try {
    env = getEnv();
  } catch (error) {
    // `prisma generate` (postinstall) needs no database; report and let database commands fail on the missing url.
    console.error(error instanceof Error ? error.message : error);
    return undefined;
  }
  if (env.DATABASE_URL) return env.DATABASE_URL;
  if (env.PGLITE_STORAGE === "memory") return "pglite:";
  return `pglite:${embeddedDatabaseDir(env.DATA_DIR)}`;
}

export default defineConfig({
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  datasource: { url: datasourceUrl() },
});
