"use client";

import { type RefObject, useEffect, useState } from "react";

/**
 * The element's content width, kept current with a ResizeObserver; 0 until measured (on the server and in
 * the first client render, so what depends on it renders after hydration, inside a box of fixed height).
 */
export function useElementWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => setWidth(Math.floor(element.getBoundingClientRect().width));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}
