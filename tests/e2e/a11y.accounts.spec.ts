import { expect, test } from "@playwright/test";
import { AUDIT_VIEWPORTS, auditPage } from "./a11y";

/**
 * The first-run page (docs/testing.md, accessibility), on the app that has no owner yet: audited as every other page is in
 * a11y.spec.ts. It only reads, so first-run.accounts.spec.ts, which creates the owner, finds the app as it was.
 */
for (const viewport of AUDIT_VIEWPORTS) {
  test.describe(`${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });
    test("setup-owner: no serious axe violation in light and dark, heading outline, named links, CLS < 0.1", async ({
      page,
    }) => {
      await auditPage(page, {
        name: "setup-owner",
        path: "/setup-owner",
        ready: (p) => expect(p.getByRole("button", { name: "Create the owner account" })).toBeVisible(),
      });
    });
  });
}
