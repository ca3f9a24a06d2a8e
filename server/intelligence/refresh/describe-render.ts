import type { TWebScrapeOutput } from "../../capabilities";

export type TRenderInfo = NonNullable<TWebScrapeOutput["render"]>;

/** The crawl's render report (web.scrape only; other verbs have none). */
export function renderInfoOf(results: unknown): TRenderInfo | undefined {
  const render = (results as { render?: unknown } | null)?.render;
  return render && typeof render === "object" && typeof (render as TRenderInfo).rendered === "boolean"
    ? (render as TRenderInfo)
    : undefined;
}

/**
 * For the crawl step's detail in the runs log, which shows whether a run rendered and what it cost
 * (docs/page-reading.md): "rendered in a browser (842 ms, 3 requests blocked)" or "plain fetch".
 */
export function describeRender(render: TRenderInfo): string {
  if (!render.rendered) return render.reason ? `plain fetch (${render.reason})` : "plain fetch";
  const parts = [`${render.ms ?? 0} ms`];
  if (render.blockedRequests) parts.push(`${render.blockedRequests} request(s) blocked`);
  return `rendered in a browser (${parts.join(", ")})`;
}
