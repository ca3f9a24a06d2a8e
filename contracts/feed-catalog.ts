import { defineCatalog } from "@json-render/core";
import { schema } from "@json-render/react/schema";
import { z } from "zod";
import type { TFeedSpec } from "./feed-item";
import { feedHref } from "./feed-link";

/**
 * The components feed cards may use (sources and synthetic items alike). `Slot` is this project's
 * model-filled text placeholder, looked up by name in the item's `slots` — not json-render's own slots.
 */
export const feedCatalog = defineCatalog(schema, {
  components: {
    Stack: {
      props: z.object({ direction: z.enum(["vertical", "horizontal"]).nullish(), gap: z.enum(["sm", "md"]).nullish() }),
      slots: ["default"],
      description: "Lays children out vertically or horizontally.",
    },
    Heading: {
      props: z.object({ text: z.string().max(300) }),
      slots: [],
      description: "Card title.",
    },
    Text: {
      props: z.object({ text: z.string().max(2000), tone: z.enum(["default", "muted", "danger"]).nullish() }),
      slots: [],
      description: "A paragraph of plain text.",
    },
    ChangeRow: {
      props: z.object({
        field: z.string().max(200),
        from: z.string().max(500),
        to: z.string().max(500),
        change: z.string().max(40).nullish(),
      }),
      slots: [],
      description: "One field's change, from → to, as people read the values (labels, units, money formatted).",
    },
    DeltaBadge: {
      props: z.object({ label: z.string().max(60), tone: z.enum(["material", "notable", "failing", "info"]) }),
      slots: [],
      description: "A small coloured badge.",
    },
    When: {
      props: z.object({ at: z.string().max(40), prefix: z.string().max(60).nullish() }),
      slots: [],
      description: "How long ago an instant (ISO 8601) was, e.g. '2 h ago'; the exact time on hover.",
    },
    NewMarker: {
      props: z.object({ label: z.string().max(100) }),
      slots: [],
      description: "Marks what arrived since the user last looked at the feed.",
    },
    Earlier: {
      props: z.object({
        total: z.number(),
        href: z.string().max(2000),
        /** Names the timeline link by its decision for screen readers (links are named by where they lead). */
        decision: z.string().max(300).nullish(),
        entries: z
          .array(z.object({ at: z.string().max(40), text: z.string().max(500), isNew: z.boolean().nullish() }))
          .max(10),
      }),
      slots: [],
      description: "Earlier changes folded behind 'n earlier': the newest few, and a link to the full timeline.",
    },
    MemberList: {
      props: z.object({
        /** The list's accessible name ("Entries in the latest change of “…”"). */
        label: z.string().max(300),
        items: z
          .array(
            z.object({
              kind: z.enum(["new", "back", "changed", "gone"]),
              name: z.string().max(300),
              href: z.string().max(2000),
              detail: z.string().max(500).nullish(),
            }),
          )
          .max(10),
        /** Members left out of the list, behind a link to the whole list. */
        more: z.number().nullish(),
        moreHref: z.string().max(2000).nullish(),
      }),
      slots: [],
      description:
        "A set's members in one change (docs/sets.md): each new, back, changed or gone, named and linked, with what changed; '+N more' links to the rest.",
    },
    Sparkline: {
      props: z.object({ values: z.array(z.number()).max(200), label: z.string().max(100).nullish() }),
      slots: [],
      description: "A tiny line chart of numbers.",
    },
    WeatherHeader: {
      props: z.object({
        place: z.string().max(200),
        temperature: z.number(),
        condition: z.string().max(100),
        unit: z.string().max(4).nullish(),
      }),
      slots: [],
      description: "Current temperature and condition for a place.",
    },
    HourlyStrip: {
      props: z.object({
        hours: z
          .array(z.object({ time: z.string(), temperature: z.number(), precipitation: z.number().nullish() }))
          .max(48),
      }),
      slots: [],
      description: "Temperatures for the next hours.",
    },
    EventRow: {
      props: z.object({
        title: z.string().max(300),
        start: z.string(),
        end: z.string().nullish(),
        location: z.string().max(300).nullish(),
      }),
      slots: [],
      description: "A calendar event.",
    },
    AgendaList: {
      props: z.object({
        /** The list's accessible name ("Today, Monday 7 Dec"). */
        label: z.string().max(300),
        events: z
          .array(
            z.object({
              /** Written in the person's time zone by the server ("09:00–09:30", "All day", "until 02:00"). */
              time: z.string().max(60),
              /** What `time` stands for, machine-readable: an ISO instant, or the day ("2026-12-07"). */
              at: z.string().max(40),
              title: z.string().max(300),
              location: z.string().max(300).nullish(),
              detail: z.string().max(120).nullish(),
              recurring: z.boolean().nullish(),
            }),
          )
          .max(50),
        /** Events of the day left out of the list. */
        more: z.number().nullish(),
      }),
      slots: [],
      description:
        "One day's calendar events in time order (docs/feed.md, Agenda), their times already in the reader's time zone.",
    },
    Link: {
      props: z.object({ href: z.string().max(2000), label: z.string().max(200) }),
      slots: [],
      description: "A link: an in-app path starting with / or an absolute http(s) URL.",
    },
    Slot: {
      props: z.object({ name: z.string().max(60) }),
      slots: [],
      description: "Model-filled text looked up by name in the item's slots; renders nothing while empty.",
    },
    Briefing: {
      props: z.object({
        /** The rule-based briefing (server/feed/briefing/build-briefing.ts): at most two lines. */
        lines: z.array(z.string().max(300)).max(2),
        /** The slot holding the model's briefing for the same inputs; shown instead of `lines` when filled. */
        slot: z.string().max(60),
      }),
      slots: [],
      description:
        "The day's briefing (docs/feed.md, The briefing card): the model's text from the named slot when filled, else the rule-based lines.",
    },
  },
  actions: {},
});

export type TSpecCheck = { ok: true; spec: TFeedSpec } | { ok: false; problem: string };

export type TSpecLimits = {
  /** Most elements a spec may have. */
  maxElements: number;
  /** Deepest nesting below the root (the root is depth 0). */
  maxDepth: number;
  /** Only these component types (default: the whole catalog). */
  components?: readonly string[];
};

/** Source cards: generous, but a spec is always a small finite tree the renderer can walk. */
export const DEFAULT_SPEC_LIMITS: TSpecLimits = { maxElements: 200, maxDepth: 8 };

const COMPONENT_NAMES: ReadonlySet<string> = new Set(feedCatalog.componentNames);

/**
 * An object zod's `z.record` takes as a record (`isPlainObject`: not an array, `constructor` is Object, read
 * once, no prototype walk). Symbol keys, which zod refuses in a record, are not looked for: JSON cannot carry
 * them, and the sources build specs from literals.
 */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && value.constructor === Object;
}

function isStringArray(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== "string") return false;
  return true;
}

/**
 * json-render's spec schema (`@json-render/react/schema`: `{root: string, elements: record({type: component
 * name, props: record, children: string[], slots?: record(string[]), visible?, repeat?})}`), written out.
 * `feedCatalog.validate` checks the same with zod at ~1 µs per element, and `validateFeedSpec` runs for every
 * card of every feed load (docs/design.md §6 fast path): a spec this accepts skips it; anything else, including
 * anything unusual (class instances, null prototypes), still goes to zod, which decides and words the problem.
 * Of what JSON can carry it accepts only what zod accepts (tests/unit/feed-spec-safety.test.ts compares them).
 */
export function hasCatalogShape(spec: unknown): boolean {
  if (!isPlainRecord(spec) || typeof spec.root !== "string" || !isPlainRecord(spec.elements)) return false;
  for (const key in spec.elements) {
    const el = spec.elements[key];
    if (!isPlainRecord(el)) return false;
    if (typeof el.type !== "string" || !COMPONENT_NAMES.has(el.type)) return false;
    if (!isPlainRecord(el.props) || !isStringArray(el.children)) return false;
    if (el.slots !== undefined) {
      if (!isPlainRecord(el.slots)) return false;
      for (const name in el.slots) if (!isStringArray(el.slots[name])) return false;
    }
  }
  return true;
}

/** A quick "valid" for a value; false means "ask zod", never "invalid". */
export type TQuickAccept = (value: unknown) => boolean;

type TZodDef = {
  type: string;
  checks?: { _zod: { def: { check?: string; maximum?: unknown } } }[];
  shape?: Record<string, z.ZodType>;
  catchall?: unknown;
  innerType?: z.ZodType;
  element?: z.ZodType;
  coerce?: boolean;
};

/** The `max_length` checks of a string or array schema as one maximum; null for any other check. */
function maxLengthOf(checks: NonNullable<TZodDef["checks"]>): number | null {
  let max = Number.POSITIVE_INFINITY;
  for (const check of checks) {
    const c = check._zod.def;
    if (c.check !== "max_length" || typeof c.maximum !== "number") return null;
    max = Math.min(max, c.maximum);
  }
  return max;
}

/**
 * A props schema turned into a plain predicate that says yes only where zod says yes: objects (unknown keys
 * stripped) of strings with a maximum length, enums, optional and nullable — what the catalog's props use.
 * Anything else gives null (zod always decides). Derived from the zod schema, so the catalog stays the one
 * definition; zod's parse of every element of every card on every feed load (docs/design.md §6 fast path) allocates
 * more than the whole rest of the load, and is now left for the rare card that fails or uses other types.
 */
export function quickAccept(schema: z.ZodType): TQuickAccept | null {
  const def = schema._zod.def as unknown as TZodDef;
  const checks = def.checks ?? [];
  switch (def.type) {
    case "string": {
      const max = maxLengthOf(checks);
      if (def.coerce || max === null) return null;
      // zod counts code points, never more than UTF-16 units: within `max` units is within `max` for zod too.
      return (v) => typeof v === "string" && v.length <= max;
    }
    case "number":
      // zod 4's number refuses NaN and ±Infinity.
      if (def.coerce || checks.length > 0) return null;
      return (v) => typeof v === "number" && Number.isFinite(v);
    case "boolean":
      if (def.coerce || checks.length > 0) return null;
      return (v) => typeof v === "boolean";
    case "array": {
      const max = maxLengthOf(checks);
      const element = def.element ? quickAccept(def.element) : null;
      if (max === null || !element) return null;
      return (v) => {
        if (!Array.isArray(v) || v.length > max) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      };
    }
    case "enum": {
      const values = schema._zod.values;
      if (checks.length > 0 || !values) return null;
      return (v) => values.has(v as never);
    }
    case "optional":
    case "nullable": {
      const inner = def.innerType ? quickAccept(def.innerType) : null;
      if (!inner || checks.length > 0) return null;
      return def.type === "optional" ? (v) => v === undefined || inner(v) : (v) => v === null || inner(v);
    }
    case "object": {
      if (checks.length > 0 || def.catchall !== undefined || !def.shape) return null;
      const keys: string[] = [];
      const accepts: TQuickAccept[] = [];
      for (const [key, field] of Object.entries(def.shape)) {
        const accept = quickAccept(field);
        if (!accept) return null;
        keys.push(key);
        accepts.push(accept);
      }
      return (v) => {
        if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
        const record = v as Record<string, unknown>;
        // Indexed loops here and in validateFeedSpec: they run per element of every card and allocate nothing.
        for (let i = 0; i < keys.length; i++)
          if (!(accepts[i] as TQuickAccept)(record[keys[i] as string])) return false;
        return true;
      };
    }
    default:
      return null;
  }
}

type TCatalogComponent = { props: z.ZodType; slots: string[] };
const COMPONENTS = feedCatalog.data.components as Record<string, TCatalogComponent>;
/** Per component, what the per-element check needs, found with one lookup (it runs for every element of every card). */
type TComponentCheck = { accept: TQuickAccept | null; props: z.ZodType; leaf: boolean; href: boolean };
const CHECKS = new Map<string, TComponentCheck>();
for (const [name, component] of Object.entries(COMPONENTS)) {
  CHECKS.set(name, {
    accept: quickAccept(component.props),
    props: component.props,
    leaf: component.slots.length === 0,
    // Components whose `href` is followed: checked with the renderer's own rule.
    href: name === "Link" || name === "Earlier",
  });
}

/** A MemberList's links (each member's and "+N more"), checked with the renderer's own rule like a Link's. */
function memberListHrefsOk(props: Record<string, unknown>): boolean {
  const items = Array.isArray(props.items) ? (props.items as { href?: unknown }[]) : [];
  for (let i = 0; i < items.length; i++) if (!feedHref(String(items[i]?.href))) return false;
  return props.moreHref === undefined || props.moreHref === null || feedHref(String(props.moreHref)) !== null;
}

/** The tree walk's scratch space: element key → the mark of the last call that reached it; the walk's stack. */
const WALK = { seen: new Map<string, number>(), mark: 0, keys: [] as string[], depths: [] as number[] };

/**
 * Catalog validation plus the graph checks json-render leaves to the renderer: the elements form one tree
 * under `root` — every child exists, no element is reached twice (a cycle or a shared child would make the
 * renderer recurse without end), none is unreachable — within the element-count and depth caps, and every
 * `Link` href passes `feedHref`.
 */
export function validateFeedSpec(spec: unknown, limits: TSpecLimits = DEFAULT_SPEC_LIMITS): TSpecCheck {
  if (!hasCatalogShape(spec)) {
    const result = feedCatalog.validate(spec);
    if (!result.success) {
      const issue = result.error?.issues[0];
      return { ok: false, problem: issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid spec" };
    }
  }
  const s = spec as TFeedSpec;
  const keys = Object.keys(s.elements);
  if (keys.length > limits.maxElements) {
    return { ok: false, problem: `${keys.length} elements (at most ${limits.maxElements})` };
  }
  if (!Object.hasOwn(s.elements, s.root)) return { ok: false, problem: `root "${s.root}" is not an element` };
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const el = s.elements[key] as TFeedSpec["elements"][string];
    if (limits.components && !limits.components.includes(el.type)) {
      return { ok: false, problem: `${key}: component ${el.type} is not allowed here` };
    }
    const check = CHECKS.get(el.type);
    // catalog.validate checks the shape and the type names, not each component's props.
    if (!check?.accept?.(el.props)) {
      const props = check?.props.safeParse(el.props);
      if (!props?.success) {
        const issue = props?.error.issues[0];
        return {
          ok: false,
          problem: `${key} (${el.type}) props: ${issue ? `${issue.path.join(".")} ${issue.message}` : "unknown component"}`,
        };
      }
    }
    if (el.children.length > 0 && check?.leaf) {
      return { ok: false, problem: `${key} (${el.type}) cannot have children` };
    }
    if (check?.href && !feedHref(String(el.props.href))) {
      return { ok: false, problem: `${key} (${el.type}) href is not an in-app path or an http(s) URL` };
    }
    if (el.type === "MemberList" && !memberListHrefsOk(el.props)) {
      return { ok: false, problem: `${key} (MemberList) an href is not an in-app path or an http(s) URL` };
    }
  }
  // Walk the tree iteratively (a hostile spec must not overflow the stack either). The scratch space is shared
  // by every call (the check is synchronous): a key counts as seen when it carries this call's mark, so nothing
  // is cleared or allocated per card of every load.
  const walk = WALK;
  const mark = ++walk.mark;
  if (walk.seen.size > 10_000) walk.seen.clear(); // keys of odd specs must not pile up
  const stackKeys = walk.keys;
  const stackDepths = walk.depths;
  stackKeys.length = 0;
  stackDepths.length = 0;
  walk.seen.set(s.root, mark);
  let reached = 1;
  stackKeys.push(s.root);
  stackDepths.push(0);
  while (stackKeys.length > 0) {
    const key = stackKeys.pop() as string;
    const depth = stackDepths.pop() as number;
    const children = s.elements[key]?.children ?? [];
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as string;
      if (!Object.hasOwn(s.elements, child)) return { ok: false, problem: `${key} has a missing child "${child}"` };
      if (walk.seen.get(child) === mark) {
        return { ok: false, problem: `${key} reaches "${child}" twice (a cycle or a shared child)` };
      }
      if (depth + 1 > limits.maxDepth) return { ok: false, problem: `nested deeper than ${limits.maxDepth} levels` };
      walk.seen.set(child, mark);
      reached++;
      stackKeys.push(child);
      stackDepths.push(depth + 1);
    }
  }
  if (reached !== keys.length) {
    const stray = keys.find((k) => walk.seen.get(k) !== mark);
    return { ok: false, problem: `element "${stray}" is not reachable from the root` };
  }
  return { ok: true, spec: s };
}

/** One element for {@link buildSpec}: its key, component and props, and (for a Stack) its own children. */
export type TSpecNode = { key: string; type: string; props: Record<string, unknown>; children?: TSpecNode[] };

/** Small builder so sources write specs as a (nested) list rather than by hand-wiring keys. */
export function buildSpec(rootType: string, rootProps: Record<string, unknown>, children: TSpecNode[]): TFeedSpec {
  const elements: TFeedSpec["elements"] = {};
  const add = (key: string, type: string, props: Record<string, unknown>, kids: TSpecNode[]) => {
    elements[key] = { type, props, children: kids.map((c) => c.key) };
    for (const c of kids) add(c.key, c.type, c.props, c.children ?? []);
  };
  add("root", rootType, rootProps, children);
  return { root: "root", elements };
}
