"use client";

import { Fragment, type ReactNode } from "react";
import type { TFeedSpec } from "@/contracts/feed-item";
import { feedRegistry, type TFeedComponent, type TFeedComponentName } from "./feed-registry";

/** Deeper than the server's own cap (DEFAULT_SPEC_LIMITS.maxDepth): only a spec that skipped the check gets here. */
const MAX_DEPTH = 16;

type TAnyComponent = TFeedComponent<TFeedComponentName>;

/**
 * Renders a json-render flat spec (`{root, elements}`) with the feed's components: each element's component
 * with its props and its children in order. The server validated the spec against the catalog and checked it is
 * a finite tree; the walk still stops at a repeated key, a missing element or an unknown component, so a bad
 * spec renders less, never loops.
 */
export function FeedSpecView({ spec }: { spec: TFeedSpec }) {
  return <>{renderElement(spec, spec.root, 0, new Set())}</>;
}

function renderElement(spec: TFeedSpec, key: string, depth: number, seen: Set<string>): ReactNode {
  if (depth > MAX_DEPTH || seen.has(key) || !Object.hasOwn(spec.elements, key)) return null;
  seen.add(key);
  const element = spec.elements[key];
  if (!element || !Object.hasOwn(feedRegistry, element.type)) return null;
  const Component = feedRegistry[element.type as TFeedComponentName] as TAnyComponent;
  const children = element.children.map((child) => (
    <Fragment key={child}>{renderElement(spec, child, depth + 1, seen)}</Fragment>
  ));
  return <Component props={element.props as never}>{children.length > 0 ? children : undefined}</Component>;
}
