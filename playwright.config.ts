import "./scripts/require-node.mjs"; // first: refuse to run on another Node.js major
import { defineConfig, devices } from "@playwright/test";
import { CHROMIUM_ARGS, findChromium } from "./tests/e2e/chromium";
import { OWNER_STATE } from "./tests/e2e/owner";
import { E2E_PORTS, E2E_URLS } from "./tests/e2e/ports";
import { E2E_LOG_DIR, SENTINELS } from "./tests/e2e/sentinels";

/**
 * Browser tests against the production build, started the way users start it (`npm start`), each app
 * on a fresh embedded database on disk (as users run it; wiped before every run). Three apps share one build: one in rules mode (AI off) for
 * `*.spec.ts`, one whose model is the local fixture model server for `*.ai.spec.ts`, and one left at first run
 * (no account yet) for `*.accounts.spec.ts`. All may fetch from the local fixture site. The `owner` setup project
 * creates the owner account on the first two and stores its session, so their specs run signed in.
 * Set E2E_PORT to run several suites side by side (with BELLWETHER_DIST_DIR).
 */
const dataDir = (port: number) => `.test-data/e2e-${port}`;
const appEnv = {
  HOSTNAME: "127.0.0.1",
  PGLITE_STORAGE: "disk",
  DATABASE_URL: "",
  // Everything the apps print is kept and scanned for secrets after the run (tests/e2e/log-scan.teardown.ts).
  LOG_LEVEL: "debug",
  AUTH_SECRET: SENTINELS.AUTH_SECRET,
  CRON_SECRET: SENTINELS.CRON_SECRET,
  // The apps run in UTC while tests/e2e/time-zones.spec.ts browses from another zone and locale, so a time
  // rendered differently on server and client shows up as a hydration error there.
  TZ: "UTC",
  FETCH_ALLOW_HOSTS: `127.0.0.1:${E2E_PORTS.site}`,
  FETCH_TIMEOUT_MS: "3000",
  // Weather comes from the fixture site too (it serves Open-Meteo JSON at /v1/forecast when a test sets it).
  OPEN_METEO_BASE_URL: E2E_URLS.site,
  // …and so does Settings' place search (Open-Meteo geocoding JSON at /v1/search).
  GEOCODING_BASE_URL: E2E_URLS.site,
  // One owner drives every spec's setup turns and refreshes within minutes; the per-user limits themselves are
  // tested in tests/integration/usage-rate-limit*.test.ts, so here they only must not get in the way.
  // A feed visit ends after 5 s without a view (30 min in production), so a spec can look, wait and look again
  // to see "new since you last looked" (tests/e2e/feed-briefing.spec.ts).
  FEED_VISIT_GAP_MS: "5000",
  RATE_LIMIT_SETUP_TURNS: "10000",
  // Every spec drives its refreshes itself ("Refresh now", the API, the cron route) and counts what they did; the
  // server's own scheduler would refresh the same trackers behind their backs. It is tested end to end on the real
  // `npm start` instead (tests/integration/scheduler-default-install.test.ts, scheduler-fleet.pg.test.ts), and
  // tests/e2e/keeps-watch.spec.ts checks what these pages say while it is off.
  SCHEDULER: "off",
  RATE_LIMIT_REFRESHES: "10000",
  RATE_LIMIT_REPLAYS: "10000",
};
const tsx = "node --import tsx";
/** Starts an app on a fresh data directory, keeping its whole output for the log scan. */
const startApp = (port: number, name: string) =>
  `rm -rf ${dataDir(port)} && mkdir -p ${E2E_LOG_DIR} && npm start 2>&1 | tee ${E2E_LOG_DIR}/${name}.log`;

const rulesAppUse = {
  ...devices["Desktop Chrome"],
  baseURL: E2E_URLS.rulesApp,
  storageState: OWNER_STATE.rulesApp,
  // API calls made with page.request are not page requests and carry no Origin; the app refuses
  // cookie-bearing POSTs without one (CSRF), as a browser page always sends it.
  extraHTTPHeaders: { origin: E2E_URLS.rulesApp },
  launchOptions: { executablePath: findChromium(), args: CHROMIUM_ARGS },
};

export default defineConfig({
  testDir: "./tests/e2e",
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: 0,
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : "list",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  use: { trace: "retain-on-failure", screenshot: "only-on-failure" },
  globalTeardown: "./tests/e2e/log-scan.teardown.ts",
  projects: [
    { name: "owner", testMatch: /owner\.setup\.ts$/ },
    // Specs that begin from the owner's empty account ("No trackers yet", "Create your first tracker") run before the
    // rest of the rules specs, which fill it (the audits seed several trackers).
    { name: "newcomer", testMatch: /(^|\/)app-shell\.spec\.ts$/, dependencies: ["owner"], use: rulesAppUse },
    {
      name: "rules",
      testIgnore: [/\.(ai|accounts)\.spec\.ts$/, /(^|\/)app-shell\.spec\.ts$/],
      dependencies: ["owner", "newcomer"],
      use: rulesAppUse,
    },
    {
      name: "ai",
      testMatch: /\.ai\.spec\.ts$/,
      dependencies: ["owner"],
      use: {
        ...devices["Desktop Chrome"],
        baseURL: E2E_URLS.aiApp,
        storageState: OWNER_STATE.aiApp,
        extraHTTPHeaders: { origin: E2E_URLS.aiApp },
        launchOptions: { executablePath: findChromium(), args: CHROMIUM_ARGS },
      },
    },
    {
      name: "accounts",
      testMatch: /\.accounts\.spec\.ts$/,
      use: {
        ...devices["Desktop Chrome"],
        baseURL: E2E_URLS.accountsApp,
        launchOptions: { executablePath: findChromium(), args: CHROMIUM_ARGS },
      },
    },
  ],
  webServer: [
    {
      command: `${tsx} tests/fixtures/site/cli.ts --port ${E2E_PORTS.site}`,
      url: `${E2E_URLS.site}/__fixture/health`,
      reuseExistingServer: false,
      timeout: 60_000,
    },
    {
      // Every feed has the briefing card, whose slot the model fills, so any signed-in visit asks for an enhancement:
      // answered "nothing to add" unless a spec records otherwise, so a spec without that recording leaves no failed
      // call (and its one-minute backoff) to the next.
      command: `${tsx} tests/fixtures/model-server/cli.ts --port ${E2E_PORTS.model} --recordings tests/fixtures/model-server/recordings/e2e-defaults.json`,
      url: `${E2E_URLS.model}/__fixture/health`,
      reuseExistingServer: false,
      timeout: 60_000,
    },
    {
      command: startApp(E2E_PORTS.rulesApp, "rules"),
      url: `${E2E_URLS.rulesApp}/api/health`,
      // The first start includes `next build`.
      timeout: 600_000,
      reuseExistingServer: false,
      stdout: "pipe",
      stderr: "pipe",
      env: {
        ...appEnv,
        DATA_DIR: dataDir(E2E_PORTS.rulesApp),
        PORT: String(E2E_PORTS.rulesApp),
        AI_PROVIDER: "rules",
        OPENAI_API_KEY: "",
        OPENAI_BASE_URL: "",
      },
    },
    {
      // Waits on the same build (start.ts holds a build lock), then serves with AI on.
      command: startApp(E2E_PORTS.aiApp, "ai"),
      url: `${E2E_URLS.aiApp}/api/health`,
      timeout: 600_000,
      reuseExistingServer: false,
      stdout: "pipe",
      stderr: "pipe",
      env: {
        ...appEnv,
        DATA_DIR: dataDir(E2E_PORTS.aiApp),
        PORT: String(E2E_PORTS.aiApp),
        AI_PROVIDER: "openai-compatible",
        OPENAI_BASE_URL: `${E2E_URLS.model}/v1`,
        AI_MODEL: "fixture-model",
        // A browser on this app only: setup photographs the sample for the page view (tests/e2e/setup-page-shot.ai.spec.ts);
        // the rules app has none, so its specs see the copy and the "no browser" offers.
        BROWSER_EXECUTABLE_PATH: findChromium(),
        // Context files are embedded by the fixture server's /v1/embeddings (hashed words), so retrieval is hybrid.
        AI_EMBEDDING_MODEL: "fixture-embedding",
        // The fixture model server ignores it; it is here so the log scan can prove it is never printed.
        OPENAI_API_KEY: SENTINELS.OPENAI_API_KEY,
      },
    },
    {
      // At first run (no owner): the accounts specs create the owner and invite a second person.
      command: startApp(E2E_PORTS.accountsApp, "accounts"),
      url: `${E2E_URLS.accountsApp}/api/health`,
      timeout: 600_000,
      reuseExistingServer: false,
      stdout: "pipe",
      stderr: "pipe",
      env: {
        ...appEnv,
        DATA_DIR: dataDir(E2E_PORTS.accountsApp),
        PORT: String(E2E_PORTS.accountsApp),
        AI_PROVIDER: "rules",
        OPENAI_API_KEY: "",
        OPENAI_BASE_URL: "",
      },
    },
  ],
});
