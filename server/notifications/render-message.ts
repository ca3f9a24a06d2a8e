import { escapeUTF8 } from "entities";
import { fieldLabel, formatChange, type TValueFormat } from "@/contracts/definition/format-value";
import type { TChangeDecisions, TChangeDelta } from "@/contracts/timeline";
import type { TMemberKind, TSetRollUpView } from "../timeline/set-roll-up-view";

/**
 * What a notice says (docs/notifications.md, "The message"): the decision, each field from → to with its unit, the rule or the
 * agent's reason, the AI slot text when there is one, and a link to the timeline entry. Pure: the same text for
 * email, webhooks, Slack, Discord and the inbox. Model and page text stay plain text: escaped in HTML.
 */

export type TNoticeField = { field: string; label: string; change: string; reason: string | null };

/** A set's roll-up as a notice says it (server/timeline/set-roll-up-view.ts): the headline and the members, linked. */
export type TNoticeSet = {
  headline: string;
  members: { kind: TMemberKind; name: string; detail: string | null; url: string }[];
  /** Members left out of the list; `membersUrl` lists them all. */
  more: number;
  membersUrl: string;
};

export type TNoticeChange = {
  changeId: string;
  trackerId: string;
  decision: string;
  materiality: "material" | "notable";
  capturedAt: Date;
  url: string;
  fields: TNoticeField[];
  /** The feed enhancement's "why" for this change, when the model wrote one (never in rules mode). */
  insight: string | null;
  /** A set tracker's roll-up (docs/sets.md): the message reads it instead of its raw lines (`fields` keep them). */
  set?: TNoticeSet;
};

/** A notice without a change (a test, a failing tracker, a paused channel). */
export type TPlainNotice = { title: string; text: string; url: string | null };

export type TMessage = {
  type: "change" | "digest" | "notice";
  subject: string;
  text: string;
  html: string;
  url: string | null;
  changes: TNoticeChange[];
};

export type TChangeSource = {
  id: string;
  trackerId: string;
  materiality: string;
  capturedAt: Date;
  delta: TChangeDelta;
  decisions: TChangeDecisions;
};

/** One change as a notice: fields formatted with the definition's units and currencies. */
export function toNoticeChange(
  change: TChangeSource,
  tracker: { decision: string },
  options: {
    formats: ReadonlyMap<string, TValueFormat>;
    appUrl: string;
    insight: string | null;
    set?: TSetRollUpView | null;
  },
): TNoticeChange {
  const fields = Object.entries(change.delta).map(([field, d]): TNoticeField => {
    const decision = change.decisions[field];
    const by = decision?.decidedBy === "agent" ? "Agent" : "Rule";
    return {
      field,
      label: fieldLabel(field),
      change: formatChange(d.from, d.to, options.formats.get(field)),
      reason: decision?.reason ? `${by}: ${decision.reason}` : null,
    };
  });
  return {
    changeId: change.id,
    trackerId: change.trackerId,
    decision: tracker.decision,
    materiality: change.materiality === "material" ? "material" : "notable",
    capturedAt: change.capturedAt,
    url: timelineUrl(options.appUrl, change.trackerId, change.id),
    fields,
    insight: options.insight,
    ...(options.set ? { set: noticeSet(options.set, options.appUrl) } : {}),
  };
}

function noticeSet(view: TSetRollUpView, appUrl: string): TNoticeSet {
  const base = appUrl.replace(/\/+$/, "");
  return {
    headline: view.headline,
    members: view.members.map((m) => ({ kind: m.kind, name: m.name, detail: m.detail, url: `${base}${m.href}` })),
    more: view.more,
    membersUrl: `${base}${view.membersHref}`,
  };
}

const KIND_WORDS: Record<TMemberKind, string> = { new: "New", back: "Back", changed: "Changed", gone: "Gone" };

/** "New: Preview comments — price $4.20" */
function memberText(m: TNoticeSet["members"][number]): string {
  return `${KIND_WORDS[m.kind]}: ${m.name}${m.detail ? ` — ${m.detail}` : ""}`;
}

/** What a notice's title says of the change: a set's headline, else each field's change. */
export function changeHeadline(c: TNoticeChange): string {
  return c.set ? c.set.headline : c.fields.map((f) => `${f.label} ${f.change}`).join("; ");
}

/** The body's lines of a change, without the decision: a set's headline and members, else each field and its reason. */
export function changeLines(c: TNoticeChange): { text: string; sub: string | null; url: string | null }[] {
  if (!c.set) return c.fields.map((f) => ({ text: `${f.label}: ${f.change}`, sub: f.reason, url: null }));
  const set = c.set;
  return [
    { text: set.headline, sub: null, url: null },
    ...set.members.map((m) => ({ text: memberText(m), sub: null, url: m.url })),
    ...(set.more > 0 ? [{ text: `+${set.more.toLocaleString("en-US")} more`, sub: null, url: set.membersUrl }] : []),
  ];
}

export function timelineUrl(appUrl: string, trackerId: string, changeId: string): string {
  return `${appUrl.replace(/\/+$/, "")}/trackers/${encodeURIComponent(trackerId)}#change-${encodeURIComponent(changeId)}`;
}

function changeText(c: TNoticeChange): string {
  const lines = [`${c.decision} — ${c.materiality} change`];
  for (const line of changeLines(c)) {
    lines.push(`  ${line.text}${line.url ? ` ${line.url}` : ""}`);
    if (line.sub) lines.push(`    ${line.sub}`);
  }
  if (c.insight) lines.push(`  Why it matters: ${c.insight}`);
  lines.push(`  ${c.url}`);
  return lines.join("\n");
}

function changeHtml(c: TNoticeChange): string {
  const e = escapeUTF8;
  const rows = c.set
    ? setHtml(c.set)
    : c.fields
        .map(
          (f) =>
            `<li><strong>${e(f.label)}</strong>: ${e(f.change)}${f.reason ? `<br><small>${e(f.reason)}</small>` : ""}</li>`,
        )
        .join("");
  const insight = c.insight ? `<p>Why it matters: ${e(c.insight)}</p>` : "";
  return `<h2>${e(c.decision)}</h2><p>${e(c.materiality)} change</p><ul>${rows}</ul>${insight}<p><a href="${e(c.url)}">Open the timeline entry</a></p>`;
}

/** A set's members as list items: kind in words, the name linking to the member's page, what changed. */
function setHtml(set: TNoticeSet): string {
  const e = escapeUTF8;
  const members = set.members.map(
    (m) =>
      `<li><strong>${e(KIND_WORDS[m.kind])}</strong>: <a href="${e(m.url)}">${e(m.name)}</a>${m.detail ? ` — ${e(m.detail)}` : ""}</li>`,
  );
  if (set.more > 0)
    members.push(`<li><a href="${e(set.membersUrl)}">+${set.more.toLocaleString("en-US")} more</a></li>`);
  return `<li><strong>${e(set.headline)}</strong></li>${members.join("")}`;
}

/** One change → one message; several (a digest, or what quiet hours held back) → one grouped message. */
export function renderChanges(changes: TNoticeChange[], options: { grouped: boolean }): TMessage {
  const first = changes[0];
  if (!first) throw new Error("renderChanges needs at least one change");
  if (!options.grouped && changes.length === 1) {
    const fieldsPart = changeHeadline(first);
    return {
      type: "change",
      subject: truncate(
        `${first.materiality === "material" ? "Material" : "Notable"} change: ${first.decision} — ${fieldsPart}`,
        200,
      ),
      text: `${changeText(first)}\n`,
      html: wrapHtml(changeHtml(first)),
      url: first.url,
      changes,
    };
  }
  const trackers = new Set(changes.map((c) => c.trackerId)).size;
  const subject = `${changes.length} change${changes.length === 1 ? "" : "s"} on ${trackers} tracker${trackers === 1 ? "" : "s"}`;
  return {
    type: "digest",
    subject,
    text: `${subject}\n\n${changes.map(changeText).join("\n\n")}\n`,
    html: wrapHtml(`<h1>${escapeUTF8(subject)}</h1>${changes.map(changeHtml).join("<hr>")}`),
    url: null,
    changes,
  };
}

export function renderPlain(notice: TPlainNotice): TMessage {
  const e = escapeUTF8;
  const link = notice.url ? `<p><a href="${e(notice.url)}">${e(notice.url)}</a></p>` : "";
  return {
    type: "notice",
    subject: truncate(notice.title, 200),
    text: `${notice.text}${notice.url ? `\n\n${notice.url}` : ""}\n`,
    html: wrapHtml(`<h2>${e(notice.title)}</h2><p>${e(notice.text)}</p>${link}`),
    url: notice.url,
    changes: [],
  };
}

function wrapHtml(body: string): string {
  return `<!doctype html><html><body style="font-family:sans-serif">${body}</body></html>`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
