/**
 * Lines of a page's text that change without the page changing what it says: counters ("1,234 people viewed
 * this", "12 comments", "5.2k shares"), relative times ("3 hours ago", "vor 2 Stunden", "gestern"), ad labels
 * ("Sponsored · Deal of the day", "Anzeige") and the heading of a recommendation block ("You may also like").
 * The structured document leaves them out of its main text (format-structured-document.ts, scan-html.ts), so a
 * ticking counter neither moves the hash nor a field read from the text (docs/page-reading.md).
 *
 * Conservative by construction: only short lines are looked at (a paragraph that mentions "sponsored" is body
 * text), counters and relative times are cut only at a line's or a " · "-segment's start or end (a sentence
 * "the council received 340 comments from residents." keeps its number), and bare day words ("today", "hier")
 * only when they are a whole segment or follow "updated"/"publié"/…. English, German, French and Spanish.
 * Fixed patterns without nested quantifiers, run on lines of at most MAX_VOLATILE_LINE characters.
 */

/** Longer lines are running text and are kept whole. */
export const MAX_VOLATILE_LINE = 120;

const NUM = String.raw`\d(?:[\d.,'’]*\d)?\s?[km]?\+?`;

/** What a counter counts (after the number): views, reads, comments, shares, likes… */
const COUNTED = [
  String.raw`(?:people|persons|readers|users|others)\s+(?:viewed|read|bought|are viewing|are reading)(?:\s+this(?:\s+(?:article|story|page|item))?)?(?:\s+today|\s+in the (?:last|past) (?:24 hours|hour|day|week))?`,
  "views?",
  "reads?",
  "readers",
  "comments?",
  "replies",
  "responses",
  "shares?",
  "likes?",
  "reactions?",
  "claps?",
  "upvotes?",
  "kommentare?",
  "reaktionen",
  "leser(?:innen)?",
  "aufrufe",
  "mal (?:gelesen|geteilt|angesehen)",
  "commentaires?",
  "réactions?",
  "partages?",
  "lectures?",
  "vues",
  "j'aime",
  "comentarios?",
  "lecturas?",
  "visitas",
  "compartidos?",
  "veces compartido",
  "me gusta",
].join("|");

const COUNTER = String.raw`(?:${NUM}\s*(?:${COUNTED})|(?:viewed|read|shared|gelesen|geteilt|vu|lu|leído|visto)\s+${NUM}\s*(?:times|mal|fois|veces))`;

/** Said before a time: "Updated 3 hours ago", "Publié hier", "Actualizado hace 5 horas". */
const STAMP_VERB = String.raw`(?:last\s+)?(?:updated|posted|published|edited|modified|aktualisiert|veröffentlicht|geändert|mis à jour|modifié|publié|actualizado|publicado|editado)(?:\s+(?:on|am|le|el))?\s*:?\s*`;
const CLOCK = String.raw`(?:,?\s*(?:um|à|a las)?\s*\d{1,2}[:.h]\d{2}(?:\s*uhr)?)?`;

const EN_UNIT = `(?:seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|hr|h|days?|d|weeks?|wks?|w|months?|mos?|years?|yrs?|y)`;
const RELATIVE_NUMBERED = [
  String.raw`(?:\d+|an?|one)\s*${EN_UNIT}\.?\s+ago`,
  String.raw`vor\s+(?:\d+|einer?|einem)\s+(?:sekunden?|minuten?|min\.?|stunden?|std\.?|tag(?:en)?|wochen?|monat(?:en)?|jahr(?:en)?)`,
  String.raw`il y a\s+(?:\d+|une?)\s+(?:secondes?|minutes?|min|heures?|h|jours?|semaines?|mois|ans?)`,
  String.raw`hace\s+(?:\d+|una?)\s+(?:segundos?|minutos?|min|horas?|h|días?|semanas?|meses|mes|años?)`,
  "just now",
  "gerade eben",
  "soeben",
  "à l'instant",
  "à l’instant",
  "ahora mismo",
].join("|");
const RELATIVE_WORD =
  "yesterday|today|gestern|heute|vorgestern|hier|aujourd'hui|aujourd’hui|avant-hier|ayer|hoy|anteayer";

/** A relative time with its optional verb before and "aktualisiert" after (German puts it last). */
const RELATIVE = String.raw`(?:${STAMP_VERB})?(?:${RELATIVE_NUMBERED})${CLOCK}(?:\s+(?:aktualisiert|veröffentlicht))?|${STAMP_VERB}(?:${RELATIVE_WORD})${CLOCK}`;

const PHRASE = `(?:${COUNTER}|${RELATIVE})`;
/** A volatile phrase at the end / the start of a segment (what precedes it may be glued: "AffairsUpdated 3 hours ago"). */
const AT_END = new RegExp(String.raw`(?:^|(?<=[\s\p{L}\p{N}.,:;)]))${PHRASE}[\s,:;]*$`, "iu");
const AT_START = new RegExp(String.raw`^\s*${PHRASE}(?![\p{L}\p{N}])[\s,:;]*`, "iu");
/** A segment that is only a day word and maybe a clock: "Gestern, 18:40 Uhr", "Hoy". */
const DAY_ONLY = new RegExp(`^(?:${RELATIVE_WORD})${CLOCK}$`, "iu");

/** Ad labels, as a whole line or before a separator ("Sponsored · Deal of the day", "Anzeige:"). */
const AD_LABEL = String.raw`(?:advertisement|advertising|advert|ads?|sponsored(?:\s+(?:content|post|story|links?|by\s+[^·•|:]{1,40}))?|promoted(?:\s+(?:content|post|by\s+[^·•|:]{1,40}))?|paid\s+(?:content|post|partnership|promotion)|partner\s+content|anzeigen?|werbung|gesponsert|sponsored|publicité|sponsorisée?|contenu\s+sponsorisé|publi-?reportage|contenu\s+partenaire|publicidad|anuncio|patrocinado|contenido\s+patrocinado)`;
const AD_LINE = new RegExp(String.raw`^${AD_LABEL}\s*(?:$|[·•|:–—-]\s*)`, "iu");
const AD_ONLY = new RegExp(String.raw`^${AD_LABEL}\s*:?$`, "iu");

/** Headings of recommendation blocks (en, de, fr, es), as a whole line, maybe with a colon. */
const RECOMMENDED =
  /^(?:you (?:may|might) (?:also )?like|recommended(?: for you| stories| articles| reading)?|more (?:stories|articles|news|to read)|most (?:read|popular|viewed|shared)(?: (?:stories|articles|this week|today))?|related(?: articles| stories| posts| content| reading| news| coverage)?|read (?:next|also)|trending(?: now| stories)?|don['’]t miss|what to read next|das könnte sie (?:auch )?interessieren|(?:das )?könnte sie auch interessieren|meistgelesen(?:e artikel)?|meist gelesen|weitere artikel|mehr zum thema|auch interessant|empfohlene artikel|lesen sie auch|à lire aussi|a lire aussi|les plus lus|les plus partagés|sur le même sujet|vous aimerez aussi|articles similaires|articles recommandés|te puede interesar|también te puede interesar|lo más leído|lo más visto|artículos relacionados|noticias relacionadas|más noticias|le puede interesar)\s*:?$/iu;

/** A short line that is only an ad label, or starts with one before a separator. */
export function isAdLine(line: string): boolean {
  return line.length <= MAX_VOLATILE_LINE && AD_LINE.test(line);
}

/** A line that is only an ad label ("Advertisement", "Anzeige"): the block it heads is an ad. */
export function isAdLabel(line: string): boolean {
  return line.length <= 40 && AD_ONLY.test(line);
}

/** A line that heads a recommendation block ("You may also like", "Meistgelesen", "À lire aussi"). */
export function isRecommendationHeading(line: string): boolean {
  return line.length <= 60 && RECOMMENDED.test(line);
}

const SEPARATOR = /\s*[·•|]\s*/;
/** A cheap first look (every line of every page passes here): a digit, a relative-time word or an ad label's start. */
const MAYBE =
  /\d|ago|now|yesterday|today|gestern|heute|eben|hier|instant|aujourd|ayer|hoy|ahora|^(?:ad|anz|wer|spo|pro|pai|par|pub|anu|pat|ges|con)/i;

/**
 * The line without its volatile parts: "" for an ad line or a line made only of counters and relative times;
 * "By Sam Reporter" for "By Sam Reporter · Updated 3 hours ago · 12 comments"; long lines unchanged.
 */
export function withoutVolatileParts(line: string): string {
  if (line.length > MAX_VOLATILE_LINE || !MAYBE.test(line)) return line;
  if (isAdLine(line)) return "";
  const kept: string[] = [];
  let changed = false;
  for (const raw of line.split(SEPARATOR)) {
    let s = raw.trim();
    for (let i = 0; i < 6 && s; i++) {
      const before = s;
      s = s.replace(AT_END, "").replace(AT_START, "").trim();
      if (DAY_ONLY.test(s)) s = "";
      if (s === before) break;
    }
    if (s !== raw.trim()) changed = true;
    if (s) kept.push(s);
  }
  // A line with nothing volatile stays exactly as written ("Size | 42 | EU" keeps its bars for regex extractors).
  return changed ? kept.join(" · ") : line;
}

/** A short text made only of counters and relative times ("3 hours ago", "12 comments"): an element holding it goes. */
export function isVolatilePhrase(text: string): boolean {
  return text.length <= 60 && !isAdLine(text) && withoutVolatileParts(text) === "";
}
