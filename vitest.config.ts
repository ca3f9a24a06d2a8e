import "./scripts/require-node.mjs"; // first: refuse to run on another Node.js major
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  resolve: { alias: { "@/": root } },
  test: {
    env: { NODE_ENV: "test", LOG_LEVEL: "silent" },
    projects: [
      { extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          exclude: ["tests/integration/**/*.pg.test.ts"],
          globalSetup: ["tests/helpers/pglite-template-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: ["tests/integration/**/*.pg.test.ts"],
          globalSetup: ["tests/helpers/pglite-template-setup.ts", "tests/helpers/postgres-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
