import type { AtomFeed, JsonFeed, RdfFeed, RssFeed } from "feedsmith";
import { resolveBase, resolveHttpUrl } from "./feed-url";

/**
 * Each format's parsed feed (feedsmith keeps every format's own structure) mapped to one shape: the fields an entry
 * is made of, still raw — text not yet made plain, dates not yet read. Which element means what is decided here,
 * once per format; parse-feed.ts makes the values plain and bounded.
 */

/** Text and whether it is HTML (RSS descriptions by custom, Atom by its type, JSON Feed by its field). */
export type TRawText = { value: string | undefined; html: boolean };

export type TRawEntry = {
  id: string | undefined;
  /** Absolute http(s), already resolved. */
  link: string | null;
  title: TRawText;
  summary: TRawText;
  published: string | undefined;
  updated: string | undefined;
  categories: (string | undefined)[];
  author: string | undefined;
};

export type TRawFeed = { title: TRawText; homeUrl: string | null; entries: TRawEntry[] };

const plain = (value: string | undefined): TRawText => ({ value, html: false });
const html = (value: string | undefined): TRawText => ({ value, html: true });

export function fromRss(feed: RssFeed.Feed<string>, url: string): TRawFeed {
  return {
    title: plain(feed.title),
    homeUrl: resolveHttpUrl(feed.link, url),
    entries: (feed.items ?? []).map((item) => {
      const guid = item.guid?.value;
      // RSS 2.0: a guid is the item's permalink unless isPermaLink="false" — the link when <link> is missing. Only
      // an absolute one: many feeds leave the default on for guids such as "1234", which are no address.
      const permalink = item.guid?.isPermaLink === false ? null : resolveHttpUrl(guid, null);
      const author = item.authors?.[0];
      return {
        id: guid,
        link: resolveHttpUrl(item.link, url) ?? permalink,
        title: plain(item.title),
        summary: html(item.description ?? item.content?.encoded),
        published: item.pubDate ?? item.dc?.dates?.[0],
        updated: item.atom?.updated ?? item.dcterms?.modified?.[0],
        categories: [...(item.categories ?? []).map((c) => c.name), ...(item.dc?.subjects ?? [])],
        author: author?.name ?? author?.email ?? item.dc?.creators?.[0],
      };
    }),
  };
}

export function fromAtom(feed: AtomFeed.Feed<string>, url: string): TRawFeed {
  // xml:base on the feed and on each entry re-bases relative links (RFC 4287 §2, RFC 3986).
  const feedBase = resolveBase(feed.xml?.base, url);
  return {
    title: atomText(feed.title),
    homeUrl: alternateLink(feed.links, feedBase),
    entries: (feed.entries ?? []).map((entry) => {
      const base = resolveBase(entry.xml?.base, feedBase);
      // An entry without authors has the feed's (RFC 4287 §4.2.1).
      const author = entry.authors?.[0] ?? entry.source?.authors?.[0] ?? feed.authors?.[0];
      const content = entry.content?.src ? undefined : entry.content;
      return {
        id: entry.id,
        link: alternateLink(entry.links, base),
        title: atomText(entry.title),
        summary: atomText(entry.summary ?? content),
        published: entry.published ?? entry.dcterms?.issued?.[0],
        updated: entry.updated,
        categories: (entry.categories ?? []).map((c) => c.label ?? c.term),
        author: author?.name ?? author?.email ?? entry.dc?.creators?.[0],
      };
    }),
  };
}

export function fromJson(feed: JsonFeed.Feed<string>, url: string): TRawFeed {
  return {
    title: plain(feed.title),
    homeUrl: resolveHttpUrl(feed.home_page_url, url),
    entries: (feed.items ?? []).map((item) => {
      // JSON Feed 1.1: an item without authors has the feed's.
      const author = item.authors?.[0] ?? feed.authors?.[0];
      const summary =
        item.summary !== undefined
          ? plain(item.summary)
          : item.content_text !== undefined
            ? plain(item.content_text)
            : html(item.content_html);
      return {
        id: item.id,
        link: resolveHttpUrl(item.url, url) ?? resolveHttpUrl(item.external_url, url),
        title: plain(item.title),
        summary,
        published: item.date_published,
        updated: item.date_modified,
        categories: item.tags ?? [],
        author: author?.name,
      };
    }),
  };
}

export function fromRdf(feed: RdfFeed.Feed<string>, url: string): TRawFeed {
  return {
    title: plain(feed.title),
    homeUrl: resolveHttpUrl(feed.link, url),
    entries: (feed.items ?? []).map((item) => ({
      // RSS 1.0 names each item by its rdf:about, a URI that plays the guid's part.
      id: item.rdf?.about,
      link: resolveHttpUrl(item.link, url),
      title: plain(item.title),
      summary: html(item.description ?? item.content?.encoded),
      published: item.dc?.dates?.[0],
      updated: item.dcterms?.modified?.[0],
      categories: item.dc?.subjects ?? [],
      author: item.dc?.creators?.[0],
    })),
  };
}

function atomText(text: AtomFeed.Text | AtomFeed.Content | undefined): TRawText {
  const type = text?.type?.toLowerCase().trim() ?? "text";
  return { value: text?.value, html: type === "html" || type === "xhtml" || type.includes("html") };
}

/** The entry's (or feed's) page: rel="alternate" or no rel, an HTML one first (RFC 4287 §4.2.7.2). */
function alternateLink(links: AtomFeed.Link<string>[] | undefined, base: string | null): string | null {
  const alternates = (links ?? []).filter((l) => !l.rel || l.rel.trim().toLowerCase() === "alternate");
  const page = alternates.find((l) => !l.type || l.type.toLowerCase().includes("html")) ?? alternates[0];
  return resolveHttpUrl(page?.href, base);
}
