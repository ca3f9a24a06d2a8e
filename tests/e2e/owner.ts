import { E2E_PORTS } from "./ports";

/** The owner account the setup project creates on the rules and AI apps; specs there run signed in as it. */
export const E2E_OWNER = { name: "E2E Owner", email: "owner@e2e.test", password: "e2e owner password" } as const;

/** Where the signed-in browser state (the session cookie) of an app's owner is kept for the specs. */
export const ownerStatePath = (port: number) => `.test-data/e2e-${port}-owner-state.json`;
export const OWNER_STATE = {
  rulesApp: ownerStatePath(E2E_PORTS.rulesApp),
  aiApp: ownerStatePath(E2E_PORTS.aiApp),
} as const;
