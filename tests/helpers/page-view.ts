/** The number of the first element of a page view's copy whose own text contains `text` (docs/page-view.md). */
export function elementShowing(html: string, text: string): number {
  for (const m of html.matchAll(/<\w+[^>]*data-bw-n="(\d+)"[^>]*>([^<]*)(?=<)/g))
    if ((m[2] ?? "").includes(text)) return Number(m[1]);
  throw new Error(`no element of the copy shows ${text}`);
}
