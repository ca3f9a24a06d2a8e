import { expect, request, test as setup } from "@playwright/test";
import { E2E_OWNER, OWNER_STATE } from "./owner";
import { E2E_URLS } from "./ports";

/**
 * Runs before the rules and AI projects: creates the owner account on each app (fresh databases, so first run)
 * through the real endpoint, and stores the signed-in state, so every existing spec runs signed in unchanged.
 */
for (const app of ["rulesApp", "aiApp"] as const) {
  setup(`create the owner account on the ${app}`, async () => {
    const baseURL = E2E_URLS[app];
    const context = await request.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL } });
    const res = await context.post("/api/auth/owner/create", { data: E2E_OWNER });
    expect(res.status(), await res.text()).toBe(200);
    await context.storageState({ path: OWNER_STATE[app] });
    await context.dispose();
  });
}
