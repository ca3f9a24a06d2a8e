export type TIcsEvent = {
  uid: string;
  summary: string;
  start: Date;
  end: Date | null;
  location: string | null;
  allDay: boolean;
};

function unescapeText(v: string): string {
  return v.replace(/\\n/gi, "\n").replace(/\\([,;\\])/g, "$1");
}

/** 20261130T090000Z | 20261130T090000 (floating, read as UTC) | 20261130 (all day). */
function parseIcsDate(value: string): { date: Date; allDay: boolean } | null {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})?(Z)?)?$/.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m;
  const date = new Date(
    Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)),
  );
  return Number.isNaN(date.getTime()) ? null : { date, allDay: h === undefined };
}

/** A small iCalendar reader: VEVENTs with UID, SUMMARY, DTSTART/DTEND, LOCATION. Recurrence is not expanded. */
export function parseIcs(text: string): TIcsEvent[] {
  const lines = text
    .replace(/\r\n?/g, "\n")
    .replace(/\n[ \t]/g, "")
    .split("\n");
  const events: TIcsEvent[] = [];
  let cur: Record<string, string> | null = null;
  for (const line of lines) {
    if (line === "BEGIN:VEVENT") cur = {};
    else if (line === "END:VEVENT") {
      if (cur?.DTSTART) {
        const start = parseIcsDate(cur.DTSTART);
        const end = cur.DTEND ? parseIcsDate(cur.DTEND) : null;
        if (start) {
          events.push({
            uid: cur.UID || `${cur.DTSTART}-${cur.SUMMARY ?? ""}`,
            summary: unescapeText(cur.SUMMARY ?? "(untitled event)"),
            start: start.date,
            end: end?.date ?? null,
            location: cur.LOCATION ? unescapeText(cur.LOCATION) : null,
            allDay: start.allDay,
          });
        }
      }
      cur = null;
    } else if (cur) {
      const colon = line.indexOf(":");
      if (colon < 0) continue;
      const name = line.slice(0, colon).split(";")[0]?.toUpperCase() ?? "";
      if (!(name in cur)) cur[name] = line.slice(colon + 1);
    }
  }
  return events;
}
