import type { TFeedItem, TSourceError } from "@/contracts/feed-item";

/** What every source sees: who, when, and the contexts of the sources it depends on. */
export type TSourceContext<TEnv = unknown> = {
  userId: string;
  now: Date;
  env: TEnv;
  /** Contexts produced by earlier sources, by source id (only dependencies are guaranteed present). */
  contexts: Record<string, unknown>;
  /** A problem worth an error chip that did not stop the source (e.g. showing a stale copy). */
  reportError: (message: string) => void;
};

export type TFeedSource<TEnv = unknown> = {
  id: string;
  dependencies?: string[];
  /** Optional: produce a context later sources read (e.g. location → weather). */
  fetchContext?: (ctx: TSourceContext<TEnv>) => Promise<unknown>;
  fetchItems: (ctx: TSourceContext<TEnv>) => Promise<TFeedItem[]>;
};

export class FeedGraphError extends Error {
  override name = "FeedGraphError";
}

/** Sources in dependency order (Kahn's algorithm, stable by registration order). Throws on missing deps and cycles. */
export function orderSources<TEnv>(sources: readonly TFeedSource<TEnv>[]): TFeedSource<TEnv>[] {
  const byId = new Map<string, TFeedSource<TEnv>>();
  for (const s of sources) {
    if (byId.has(s.id)) throw new FeedGraphError(`Feed source "${s.id}" is registered twice.`);
    byId.set(s.id, s);
  }
  for (const s of sources) {
    for (const dep of s.dependencies ?? []) {
      if (!byId.has(dep))
        throw new FeedGraphError(`Feed source "${s.id}" depends on "${dep}", which is not registered.`);
    }
  }
  const ordered: TFeedSource<TEnv>[] = [];
  const done = new Set<string>();
  let remaining = [...sources];
  while (remaining.length > 0) {
    const ready = remaining.filter((s) => (s.dependencies ?? []).every((d) => done.has(d)));
    if (ready.length === 0) {
      throw new FeedGraphError(`Feed sources have a dependency cycle: ${remaining.map((s) => s.id).join(", ")}.`);
    }
    for (const s of ready) {
      ordered.push(s);
      done.add(s.id);
    }
    remaining = remaining.filter((s) => !done.has(s.id));
  }
  return ordered;
}

export type TEngineResult = { items: TFeedItem[]; errors: TSourceError[]; contexts: Record<string, unknown> };

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Sources register with ids and dependencies; `run` validates the graph, runs every `fetchContext` in
 * topological order, then every `fetchItems` (in parallel), and collects per-source errors instead of
 * failing. A source whose dependency failed is skipped with an error naming the dependency.
 */
export class FeedEngine<TEnv = unknown> {
  private readonly sources: TFeedSource<TEnv>[] = [];

  register(source: TFeedSource<TEnv>): this {
    this.sources.push(source);
    return this;
  }

  /** Throws FeedGraphError for a missing dependency or a cycle. */
  order(): string[] {
    return orderSources(this.sources).map((s) => s.id);
  }

  async run(input: { userId: string; now: Date; env: TEnv }): Promise<TEngineResult> {
    const ordered = orderSources(this.sources);
    const contexts: Record<string, unknown> = {};
    const errors: TSourceError[] = [];
    const failed = new Set<string>();
    const ctxFor = (source: TFeedSource<TEnv>): TSourceContext<TEnv> => ({
      ...input,
      contexts,
      reportError: (message) => errors.push({ sourceId: source.id, message }),
    });

    for (const source of ordered) {
      const badDep = (source.dependencies ?? []).find((d) => failed.has(d));
      if (badDep) {
        failed.add(source.id);
        errors.push({ sourceId: source.id, message: `Skipped because "${badDep}" failed.` });
        continue;
      }
      if (!source.fetchContext) continue;
      try {
        contexts[source.id] = await source.fetchContext(ctxFor(source));
      } catch (error) {
        failed.add(source.id);
        errors.push({ sourceId: source.id, message: messageOf(error) });
      }
    }

    const runnable = ordered.filter((s) => !failed.has(s.id));
    const settled = await Promise.allSettled(runnable.map((s) => s.fetchItems(ctxFor(s))));
    const items: TFeedItem[] = [];
    settled.forEach((r, i) => {
      const source = runnable[i];
      if (!source) return;
      if (r.status === "fulfilled") {
        // Items carry their source's id; one that already says so is not copied to say it again.
        for (const item of r.value) items.push(item.sourceId === source.id ? item : { ...item, sourceId: source.id });
      } else errors.push({ sourceId: source.id, message: messageOf(r.reason) });
    });
    return { items, errors, contexts };
  }
}
