import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/**
 * Page audits for accessibility (docs/testing.md), shared by the a11y specs: axe-core's WCAG 2.x A/AA
 * rules (violations by impact), the heading outline, links named by where they lead, and the page's cumulative
 * layout shift while it loads and its data arrives.
 */

export type TAxeFinding = { id: string; impact: string; help: string; targets: string[] };

/** axe-core on the whole page: every violation of impact "critical" or "serious", printable. */
export async function seriousAxeViolations(page: Page): Promise<TAxeFinding[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    // The page view's frame holds a copy of someone else's page, with scripts off (docs/page-view.md): axe cannot run
    // inside it, and its markup is the site's, not ours. The frame element itself (its title) is still audited.
    .exclude('[data-testid="page-view-frame"]')
    .analyze();
  return results.violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) => ({
      id: v.id,
      impact: v.impact ?? "",
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")} — ${n.failureSummary?.split("\n")[1]?.trim()}`),
    }));
}

/** One line per violation and node, for a failure message people can act on. */
export function describeFindings(findings: TAxeFinding[]): string {
  return findings.map((f) => `[${f.impact}] ${f.id}: ${f.help}\n    ${f.targets.join("\n    ")}`).join("\n");
}

/**
 * The heading outline: problems found (none when the page has one h1 first and never skips a level going deeper,
 * e.g. h2 → h4). Headings hidden from everyone are left out; visually hidden (sr-only) ones count, as screen
 * readers list them.
 */
export function headingOutlineProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const shown = (el: Element) =>
      !el.closest("[hidden], [aria-hidden='true']") && getComputedStyle(el).display !== "none";
    const levels = [...document.querySelectorAll("h1, h2, h3, h4, h5, h6, [role='heading']")]
      .filter(shown)
      .map((h) => ({
        level: Number(h.getAttribute("aria-level") ?? h.tagName.slice(1)),
        text: (h.textContent ?? "").trim().slice(0, 60),
      }));
    const problems: string[] = [];
    const h1s = levels.filter((h) => h.level === 1).length;
    if (h1s !== 1) problems.push(`${h1s} h1 elements (expected exactly one)`);
    if (levels[0] && levels[0].level !== 1) problems.push(`first heading is h${levels[0].level} "${levels[0].text}"`);
    levels.forEach((h, i) => {
      const before = levels[i - 1];
      if (before && h.level > before.level + 1)
        problems.push(`h${before.level} "${before.text}" → h${h.level} "${h.text}"`);
    });
    return problems;
  });
}

/**
 * Links whose accessible name is shared with a link to another place (WCAG 2.4.4: the purpose of each link from
 * its text, or its text with its context). Names come from aria-label, aria-labelledby, or the text and image
 * alternatives inside — the ways this app names links.
 */
export function ambiguousLinks(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const text = (el: Element): string =>
      [...el.childNodes]
        .map((n) =>
          n.nodeType === Node.TEXT_NODE
            ? (n.textContent ?? "")
            : n instanceof Element && n.getAttribute("aria-hidden") !== "true"
              ? n.getAttribute("aria-label") || n.getAttribute("alt") || text(n)
              : "",
        )
        .join(" ");
    const nameOf = (a: Element) => {
      const labelledBy = a.getAttribute("aria-labelledby");
      const raw = labelledBy
        ? labelledBy
            .split(/\s+/)
            .map((id) => document.getElementById(id)?.textContent ?? "")
            .join(" ")
        : a.getAttribute("aria-label") || text(a);
      return raw.replace(/\s+/g, " ").trim().toLowerCase();
    };
    const byName = new Map<string, Set<string>>();
    for (const a of document.querySelectorAll("a[href]")) {
      if (a.closest("[hidden], [aria-hidden='true']")) continue;
      const href = new URL(a.getAttribute("href") ?? "", location.href);
      href.hash = "";
      const name = nameOf(a);
      byName.set(name, (byName.get(name) ?? new Set()).add(href.toString()));
    }
    return [...byName]
      .filter(([, hrefs]) => hrefs.size > 1)
      .map(([name, hrefs]) => `"${name}" leads to ${hrefs.size} places: ${[...hrefs].slice(0, 3).join(", ")}`);
  });
}

/**
 * Installs a layout-shift counter before any page script runs: the sum of every layout-shift entry not caused
 * by recent input (what CLS adds up, without session windows, so it can only be larger than Lighthouse's CLS).
 */
export async function watchLayoutShift(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __cls: number; __shifts: string[] };
    w.__cls = 0;
    w.__shifts = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as unknown as {
        value: number;
        hadRecentInput: boolean;
        sources?: { node?: Node }[];
      }[]) {
        if (entry.hadRecentInput) continue;
        w.__cls += entry.value;
        const node = entry.sources?.[0]?.node;
        const what =
          node instanceof Element
            ? `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ""}${node.getAttribute("data-testid") ? `[data-testid=${node.getAttribute("data-testid")}]` : ""}.${[...node.classList].slice(0, 4).join(".")}`
            : String(node?.nodeName ?? "?");
        w.__shifts.push(`${entry.value.toFixed(4)} ${what}`);
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
}

/** The shift counted so far, after two animation frames (so a shift from the last commit has been reported). */
export async function layoutShift(page: Page): Promise<{ cls: number; shifts: string[] }> {
  return page.evaluate(async () => {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const w = window as unknown as { __cls: number; __shifts: string[] };
    return { cls: w.__cls, shifts: w.__shifts };
  });
}

/** The widths every page is audited at, each in light and dark (the app's dark mode follows prefers-color-scheme). */
export const AUDIT_VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

export type TAuditCheck = "axe" | "headings" | "links" | "layoutShift";
export type TAuditTarget = {
  name: string;
  path: string;
  /** Waits until the page's data has arrived (what shows then). */
  ready: (page: Page) => Promise<void>;
  /** The HTTP status the page answers with (200 unless said). */
  status?: number;
};

export const mainHeading = async (page: Page) => {
  await expect(page.locator("main h1")).toBeVisible();
};

/**
 * Opens the page in light mode with the layout-shift counter on, waits for its data, then runs every check; then
 * switches the same page to dark mode and runs axe-core again (colours are all that changes). Each failing check
 * is reported (soft), so one run lists everything a page gets wrong.
 */
export async function auditPage(page: Page, target: TAuditTarget): Promise<void> {
  await page.emulateMedia({ colorScheme: "light" });
  await watchLayoutShift(page);
  // At phone width the page loads on a CPU slowed 4× (as Lighthouse's mobile run does), so content that arrives or
  // draws late, after hydration, has every chance to move what is already on screen.
  const cdp = await page.context().newCDPSession(page);
  const phone = (page.viewportSize()?.width ?? 1280) < 640;
  if (phone) await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  const response = await page.goto(target.path);
  expect(response?.status(), "HTTP status").toBe(target.status ?? 200);
  await target.ready(page);
  await page.evaluate(() => document.fonts.ready);
  if (phone) await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
  await cdp.detach();

  const report = (check: TAuditCheck, ok: boolean, detail: string, label: string = check) => {
    expect.soft(ok, `${target.name}: ${label}\n${detail}`).toBe(true);
  };
  const shift = await layoutShift(page);
  report("layoutShift", shift.cls < 0.1, `CLS ${shift.cls.toFixed(4)}:\n  ${shift.shifts.join("\n  ")}`);
  const light = await seriousAxeViolations(page);
  report("axe", light.length === 0, describeFindings(light), "axe (light)");
  await page.emulateMedia({ colorScheme: "dark" });
  await expect.poll(() => page.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches)).toBe(true);
  const dark = await seriousAxeViolations(page);
  report("axe", dark.length === 0, describeFindings(dark), "axe (dark)");
  const headings = await headingOutlineProblems(page);
  report("headings", headings.length === 0, headings.join("\n"));
  const links = await ambiguousLinks(page);
  report("links", links.length === 0, links.join("\n"));
}
