import sanitizeHtml from "sanitize-html";
import { PAGE_ELEMENT_ATTRIBUTE } from "../../../contracts/setup-page-view";

/**
 * The sample page made inert for the page view (docs/page-view.md): sanitize-html keeps the page's
 * structure and the attributes anchors are built from (ids, classes, microdata, data-*), drops scripts,
 * frames, forms' actions, event handlers and every URL that would fetch something, and numbers each
 * element (`data-bw-n`, in document order) so a click on the view names one element of this very HTML.
 * The browser shows it in a sandboxed frame without scripts under a no-network policy; anchors are
 * checked against it with the same CSS engine that reads pages. Runs in a page worker (page-tasks.ts).
 */

/** The attribute that numbers the snapshot's elements. Never part of an anchor. */
export const ELEMENT_NUMBER = PAGE_ELEMENT_ATTRIBUTE;
export const SNAPSHOT_MAX_CHARS = 1_000_000;
const MAX_STYLE_CHARS = 200_000;

export type TPageSnapshot = { html: string; truncated: boolean };

/**
 * The attribute a page is stamped with before it is shown to the browser for its screenshot (page-shot.ts): each
 * element carries its stamp into the browser (where its box is measured) and into the copy (where it is numbered),
 * so a box on the screenshot names the copy's element even where the two parsers build different trees.
 */
export const SHOT_ATTRIBUTE = "data-bw-shot";

/** The copy, and for the screenshot: the stamped page and which copy element each stamp became ([stamp, n]). */
export type TStampedSnapshot = TPageSnapshot & { stamped: string; stamps: [number, number][] };

/**
 * Code, frames and embedded documents become empty `<template>`s rather than vanishing, so the snapshot has
 * the page's element structure (a `+`, `:first-child` or `:nth-child` anchor checked here holds on the page).
 */
const INERT = new Set([
  "script",
  "noscript",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "applet",
  "svg",
  "math",
  "textarea",
  "canvas",
  "video",
  "audio",
  "base",
  "title",
]);

const TAGS = [
  ...sanitizeHtml.defaults.allowedTags,
  "template",
  "form",
  "html",
  "head",
  "body",
  "style",
  "img",
  "picture",
  "button",
  "select",
  "option",
  "optgroup",
  "label",
  "input",
  "meta",
  "link",
  "del",
  "s",
  "strike",
  "ins",
  "sup",
  "sub",
  "small",
  "mark",
  "time",
  "data",
  "details",
  "summary",
  "fieldset",
  "legend",
  "dl",
  "dt",
  "dd",
];

const options = (keepStyles: boolean, onNumbered?: (stamp: number, n: number) => void): sanitizeHtml.IOptions => {
  let n = 0;
  let styleChars = 0;
  return {
    allowedTags: keepStyles ? TAGS : TAGS.filter((t) => t !== "style"),
    allowVulnerableTags: true,
    // Kept as text: a variant selector's options name prices. Dropped with their text: code and invisible parts.
    nonTextTags: ["style", ...INERT],
    allowedAttributes: {
      "*": [
        "id",
        "class",
        "style",
        "title",
        "lang",
        "dir",
        "role",
        "hidden",
        "aria-*",
        "data-*",
        "itemprop",
        "itemscope",
        "itemtype",
        "itemid",
        "content",
        "datetime",
        "value",
      ],
      a: ["href", "name"],
      img: ["src", "alt", "width", "height"],
      td: ["colspan", "rowspan"],
      th: ["colspan", "rowspan", "scope"],
      option: ["selected", "label"],
      input: ["type", "checked", "placeholder", "name"],
      meta: ["itemprop", "content"],
      link: ["itemprop", "href"],
    },
    // Links stay readable but lead nowhere from the frame; images only from inline data.
    allowedSchemes: ["http", "https"],
    allowedSchemesByTag: { img: ["data"] },
    allowProtocolRelative: false,
    disallowedTagsMode: "discard",
    exclusiveFilter: (frame) => {
      if (frame.tag !== "style") return false;
      styleChars += frame.text.length;
      return styleChars > MAX_STYLE_CHARS || /@import|expression\s*\(/i.test(frame.text);
    },
    transformTags: {
      ...Object.fromEntries([...INERT].map((tag) => [tag, () => ({ tagName: "template", attribs: {}, text: "" })])),
      "*": (tagName, attribs) => {
        const { [ELEMENT_NUMBER]: _theirs, [SHOT_ATTRIBUTE]: stamp, ...rest } = attribs;
        if (stamp !== undefined && onNumbered) onNumbered(Number(stamp), n);
        return { tagName, attribs: { ...rest, [ELEMENT_NUMBER]: String(n++) } };
      },
    },
  };
};

/** The inert, numbered copy of `html`, at most `maxChars` (styles go first, then the end of the page). */
export function snapshotPage(
  html: string,
  maxChars = SNAPSHOT_MAX_CHARS,
  onNumbered?: (stamp: number, n: number) => void,
): TPageSnapshot {
  let out = sanitizeHtml(html, options(true, onNumbered));
  if (out.length <= maxChars) return { html: out, truncated: false };
  out = sanitizeHtml(html, options(false, onNumbered));
  if (out.length <= maxChars) return { html: out, truncated: false };
  const cut = out.lastIndexOf(">", maxChars);
  return { html: out.slice(0, cut > 0 ? cut + 1 : maxChars), truncated: true };
}

/**
 * The page with every element stamped (`data-bw-shot`, in document order) and nothing else changed — scripts stay,
 * since the browser that takes the screenshot runs none — and its copy, numbered as `snapshotPage` numbers it.
 */
export function stampedSnapshot(html: string, maxChars = SNAPSHOT_MAX_CHARS): TStampedSnapshot {
  let stamp = 0;
  const doctype = /^\s*(<!doctype[^>]*>)/i.exec(html)?.[1] ?? "";
  const stamped =
    doctype +
    sanitizeHtml(html, {
      allowedTags: false,
      allowedAttributes: false,
      allowVulnerableTags: true,
      disallowedTagsMode: "discard",
      transformTags: {
        "*": (tagName, attribs) => ({ tagName, attribs: { ...attribs, [SHOT_ATTRIBUTE]: String(stamp++) } }),
      },
    });
  let stamps = new Map<number, number>();
  const snapshot = snapshotPage(stamped, maxChars, (s, n) => {
    // A second pass (styles dropped to fit) numbers again from zero: its numbers are the ones kept.
    if (n === 0) stamps = new Map();
    stamps.set(s, n);
  });
  // A tag the copy discards was numbered on its way out: only numbers the copy holds are mapped.
  const kept = new Set(
    Array.from(snapshot.html.matchAll(new RegExp(` ${ELEMENT_NUMBER}="(\\d+)"`, "g")), (m) => Number(m[1])),
  );
  return { ...snapshot, stamped, stamps: [...stamps].filter(([, n]) => kept.has(n)) };
}
