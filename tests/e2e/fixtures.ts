import { modelServerControl } from "../fixtures/model-server/control";
import { fixtureSiteControl } from "../fixtures/site/control";
import { E2E_URLS } from "./ports";

/** Drive the fixture servers that Playwright started as separate processes (see playwright.config.ts). */
export const site = fixtureSiteControl(E2E_URLS.site);
export const model = modelServerControl(E2E_URLS.model);
export { E2E_URLS };
