/**
 * Ports for one e2e run, derived from E2E_PORT so parallel runs (different E2E_PORT) never collide:
 * the app in rules mode, the app with AI on the fixture model server, the app left at first run (no owner yet)
 * for the accounts specs, the fixture site, the model server.
 */
const base = Number(process.env.E2E_PORT ?? 3100);

export const E2E_PORTS = {
  rulesApp: base,
  aiApp: base + 1,
  accountsApp: base + 2,
  site: base + 10,
  model: base + 11,
} as const;
export const E2E_URLS = {
  rulesApp: `http://127.0.0.1:${E2E_PORTS.rulesApp}`,
  aiApp: `http://127.0.0.1:${E2E_PORTS.aiApp}`,
  accountsApp: `http://127.0.0.1:${E2E_PORTS.accountsApp}`,
  site: `http://127.0.0.1:${E2E_PORTS.site}`,
  model: `http://127.0.0.1:${E2E_PORTS.model}`,
} as const;
