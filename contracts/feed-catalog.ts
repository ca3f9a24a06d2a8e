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
      props: z.object({ field: z.string().max(200), from: z.string().max(500), to: z.string().max(500) }),
      slots: [],
      description: "One field's change, from → to.",
    },
    DeltaBadge: {
      props: z.object({ label: z.string().max(60), tone: z.enum(["material", "notable", "failing", "info"]) }),
      slots: [],
      description: "A small coloured badge.",
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

/**
 * Catalog validation plus the graph checks json-render leaves to the renderer: the elements form one tree
 * under `root` — every child exists, no element is reached twice (a cycle or a shared child would make the
 * renderer recurse without end), none is unreachable — within the element-count and depth caps, and every
 * `Link` href passes `feedHref`.
 */
export function validateFeedSpec(spec: unknown, limits: TSpecLimits = DEFAULT_SPEC_LIMITS): TSpecCheck {
  const result = feedCatalog.validate(spec);
  if (!result.success) {
    const issue = result.error?.issues[0];
    return { ok: false, problem: issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid spec" };
  }
  const s = spec as TFeedSpec;
  const keys = Object.keys(s.elements);
  if (keys.length > limits.maxElements) {
    return { ok: false, problem: `${keys.length} elements (at most ${limits.maxElements})` };
  }
  if (!Object.hasOwn(s.elements, s.root)) return { ok: false, problem: `root "${s.root}" is not an element` };
  const components = feedCatalog.data.components as Record<string, { props: z.ZodType; slots: string[] }>;
  for (const [key, el] of Object.entries(s.elements)) {
    if (limits.components && !limits.components.includes(el.type)) {
      return { ok: false, problem: `${key}: component ${el.type} is not allowed here` };
    }
    // catalog.validate checks the shape and the type names, not each component's props.
    const props = components[el.type]?.props.safeParse(el.props);
    if (!props?.success) {
      const issue = props?.error.issues[0];
      return {
        ok: false,
        problem: `${key} (${el.type}) props: ${issue ? `${issue.path.join(".")} ${issue.message}` : "unknown component"}`,
      };
    }
    if (el.children.length > 0 && components[el.type]?.slots.length === 0) {
      return { ok: false, problem: `${key} (${el.type}) cannot have children` };
    }
    if (el.type === "Link" && !feedHref(String(el.props.href))) {
      return { ok: false, problem: `${key} (Link) href is not an in-app path or an http(s) URL` };
    }
  }
  // Walk the tree iteratively (a hostile spec must not overflow the stack either).
  const seen = new Set<string>([s.root]);
  const stack: { key: string; depth: number }[] = [{ key: s.root, depth: 0 }];
  while (stack.length > 0) {
    const { key, depth } = stack.pop() as { key: string; depth: number };
    for (const child of s.elements[key]?.children ?? []) {
      if (!Object.hasOwn(s.elements, child)) return { ok: false, problem: `${key} has a missing child "${child}"` };
      if (seen.has(child)) return { ok: false, problem: `${key} reaches "${child}" twice (a cycle or a shared child)` };
      if (depth + 1 > limits.maxDepth) return { ok: false, problem: `nested deeper than ${limits.maxDepth} levels` };
      seen.add(child);
      stack.push({ key: child, depth: depth + 1 });
    }
  }
  if (seen.size !== keys.length) {
    const stray = keys.find((k) => !seen.has(k));
    return { ok: false, problem: `element "${stray}" is not reachable from the root` };
  }
  return { ok: true, spec: s };
}

/** Small builder so sources write specs as a list rather than by hand-wiring keys. */
export function buildSpec(
  rootType: string,
  rootProps: Record<string, unknown>,
  children: { key: string; type: string; props: Record<string, unknown> }[],
): TFeedSpec {
  const elements: TFeedSpec["elements"] = {
    root: { type: rootType, props: rootProps, children: children.map((c) => c.key) },
  };
  for (const c of children) elements[c.key] = { type: c.type, props: c.props, children: [] };
  return { root: "root", elements };
}
