// Helpers for the schema-engine shim: load @prisma/schema-engine-wasm and build a migration-aware
// driver adapter factory (PostgreSQL via @prisma/adapter-pg, or embedded PGlite).
// Adopted from the stand-in engine proven with Prisma 7.10.0; when prisma is upgraded, move
// @prisma/schema-engine-wasm and ENGINE_HASH in schema-engine-wasm-shim.mjs with it.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";

const require = createRequire(import.meta.url);

export async function loadEngineModule() {
  const bg = await import("@prisma/schema-engine-wasm/schema_engine_bg");
  const pkgDir = path.dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg"));
  const bytes = fs.readFileSync(path.join(pkgDir, "schema_engine_bg.wasm"));
  const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": bg });
  bg.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start?.();
  return bg;
}

let pgPatched = false;
function patchPgCharType() {
  if (pgPatched) return;
  pgPatched = true;
  // @prisma/adapter-pg 7.x throws on the internal Postgres type "char" (OID 18), which the schema
  // engine's pg_catalog introspection returns (relkind, contype, ...). Present it as text.
  const Result = require("pg/lib/result");
  const orig = Result.prototype.addFields;
  Result.prototype.addFields = function addFields(fields) {
    for (const f of fields) if (f.dataTypeID === 18) f.dataTypeID = 25;
    return orig.call(this, fields);
  };
}

export function pgConfigFromUrl(url) {
  // Discrete fields rather than { connectionString }: adapter-pg 7.10's connectToShadowDb() spreads
  // { ...config, database: shadow } and pg lets a connectionString override `database` (the shadow
  // database would silently be the main one).
  const { parse } = createRequire(require.resolve("pg"))("pg-connection-string");
  const { host, port, user, password, database, connection_limit } = parse(url);
  const cfg = { host, port: port ? Number(port) : 5432, user, password, database };
  if (connection_limit) cfg.max = Number(connection_limit); // e.g. `prisma dev` (PGlite) wants 1
  return cfg;
}

/** `pglite:` → in-memory, `pglite:<dir>` → that data directory. */
export function pgliteDirFromUrl(url) {
  const dir = url.slice("pglite:".length);
  return dir === "" ? undefined : path.resolve(dir);
}

export async function makeAdapterFactory(url, { shadowUrl } = {}) {
  if (url.startsWith("pglite:")) return makePgliteFactory(pgliteDirFromUrl(url));
  patchPgCharType();
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const config = pgConfigFromUrl(url);
  // adapter-pg 7.10's connectToShadowDb() drops the shadow DB *before* closing the pool connected
  // to it ("database ... is being accessed by other users"); this reorders it.
  // adapter-pg 7.10's executeScript() splits the script on every ";", which breaks any migration
  // with a function body, a string or even a comment containing one. Send it whole instead: the
  // simple query protocol runs multi-statement scripts natively.
  const wholeScripts = (adapter) => {
    adapter.executeScript = async (script) => {
      try {
        await adapter.client.query(script);
      } catch (error) {
        adapter.onError(error);
      }
    };
    return adapter;
  };
  class PrismaPgShadowFix extends PrismaPg {
    async connect() {
      return wholeScripts(await super.connect());
    }
    async connectToShadowDb() {
      // An explicit shadow DB (datasource.shadowDatabaseUrl) is used as-is; the native engine
      // wipes a user-provided shadow DB before use, so do the same.
      if (shadowUrl) {
        const shadow = wholeScripts(await new PrismaPg(pgConfigFromUrl(shadowUrl)).connect());
        await shadow.executeScript(`DROP SCHEMA IF EXISTS "public" CASCADE; CREATE SCHEMA "public";`);
        return shadow;
      }
      const admin = await this.connect();
      const database = `prisma_migrate_shadow_db_${globalThis.crypto.randomUUID()}`;
      await admin.executeScript(`CREATE DATABASE "${database}"`);
      const shadow = wholeScripts(await new PrismaPg({ ...config, database }).connect());
      const disposeShadow = shadow.dispose.bind(shadow);
      shadow.dispose = async () => {
        await disposeShadow();
        await admin.executeScript(`DROP DATABASE IF EXISTS "${database}"`);
        await admin.dispose();
      };
      return shadow;
    }
  }
  return { factory: bindMigrationAwareSqlAdapterFactory(new PrismaPgShadowFix(config)), close: async () => {} };
}

async function makePgliteFactory(dataDir) {
  const { PGlite } = await import("@electric-sql/pglite");
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  const opened = [];
  const open = async (dir) => {
    const db = await PGlite.create(dir ? { dataDir: dir } : {});
    opened.push(db);
    return db;
  };
  // pglite-prisma-adapter 0.7.2's executeScript() does not await exec(), so a failing migration
  // script becomes an unhandled rejection instead of an error the CLI reports. Await it here.
  const withAwaitedScripts = (adapter) => {
    adapter.executeScript = async (script) => {
      try {
        await adapter.client.exec(script);
      } catch (error) {
        adapter.onError(error); // rethrows as a DriverAdapterError the engine understands
      }
    };
    return adapter;
  };
  const main = new PrismaPGlite(await open(dataDir));
  const factory = {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: async () => withAwaitedScripts(await main.connect()),
    connectToShadowDb: async () => withAwaitedScripts(await new PrismaPGlite(await open(undefined)).connect()),
  };
  return {
    factory: bindMigrationAwareSqlAdapterFactory(factory),
    close: async () => {
      for (const db of opened) await db.close();
    },
  };
}
