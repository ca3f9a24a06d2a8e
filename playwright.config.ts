import { defineConfig, devices } from "@playwright/test";
import { CHROMIUM_ARGS, findChromium } from "./tests/e2e/chromium";

/**
 * Browser tests against the production build, started the way users start it (`npm start`), on a
 * throwaway in-memory embedded database and with AI forced off (rules mode).
 */
const PORT = Number(process.env.E2E_PORT ?? 3100);
const BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: "./tests/e2e",
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : "list",
  timeout: 30_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL: BASE_URL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: { executablePath: findChromium(), args: CHROMIUM_ARGS },
      },
    },
  ],
  webServer: {
    command: "npm start",
    url: `${BASE_URL}/api/health`,
    // First run includes `next build`.
    timeout: 240_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      PORT: String(PORT),
      HOSTNAME: "127.0.0.1",
      PGLITE_STORAGE: "memory",
      AI_PROVIDER: "rules",
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
      DATABASE_URL: "",
      LOG_LEVEL: "warn",
    },
  },
});
