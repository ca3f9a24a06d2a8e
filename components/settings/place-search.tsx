"use client";

import { useQuery } from "@tanstack/react-query";
import { type KeyboardEvent, useEffect, useId, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { inputClass } from "@/components/ui/form-field";
import type { TPlace } from "@/contracts/settings";

/** Matches PLACE_SEARCH_MIN_CHARS in contracts/settings.ts (a type-only import keeps zod out of the bundle). */
const MIN_CHARS = 2;
const DEBOUNCE_MS = 250;

function useDebounced(value: string, ms: number): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

const coords = (p: TPlace) => `${p.latitude.toFixed(2)}, ${p.longitude.toFixed(2)}`;

/**
 * Type a place name, pick one of the geocoder's answers (settings.searchPlaces → Open-Meteo). A combobox with a
 * listbox popup after the WAI-ARIA Authoring Practices "list autocomplete with manual selection" pattern: ↓/↑ move
 * through the places (the input keeps focus; aria-activedescendant names the active one), Enter picks, Escape closes
 * the list (or clears the text when it is closed), Tab leaves. The popup floats over the page, so nothing below it
 * moves while results arrive.
 */
export function PlaceSearch({
  inputId,
  onPick,
  describedBy,
}: {
  /** For the visible <label htmlFor>. */
  inputId: string;
  onPick: (place: TPlace) => void;
  describedBy?: string;
}) {
  const trpc = useTRPC();
  const id = useId();
  const listboxId = `${id}-places`;
  const [text, setText] = useState("");
  /** What was typed (not what a pick wrote into the input): the search term. */
  const [term, setTerm] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [announcement, setAnnouncement] = useState("");

  const debounced = useDebounced(term.trim(), DEBOUNCE_MS);
  const enabled = debounced.length >= MIN_CHARS;
  const search = useQuery({
    ...trpc.settings.searchPlaces.queryOptions({ query: debounced }),
    enabled,
    staleTime: 5 * 60_000,
    // An unreachable geocoder is said at once; the person can type again to retry.
    retry: false,
  });

  const typing = term.trim().length >= MIN_CHARS && (debounced !== term.trim() || search.isFetching);
  const places = enabled && !typing && search.data ? search.data.places : [];
  const showPopup = open && term.trim().length >= MIN_CHARS;
  const expanded = showPopup && places.length > 0;

  let message: { text: string; tone: "info" | "error" } | null = null;
  if (showPopup) {
    if (typing) message = { text: "Searching…", tone: "info" };
    else if (search.isError) message = { text: search.error.message, tone: "error" };
    else if (search.data && places.length === 0) {
      message = { text: `No places found for “${search.data.query}”.`, tone: "info" };
    }
  }

  // One polite announcement per state, so a screen reader hears the count, the empty result or the failure.
  const liveText = !showPopup
    ? announcement
    : message
      ? message.text
      : places.length > 0
        ? `${places.length} place${places.length === 1 ? "" : "s"} found. Use the up and down arrows to choose, Enter to pick.`
        : "";

  const pick = (place: TPlace) => {
    onPick(place);
    setText(place.label);
    setTerm("");
    setOpen(false);
    setActive(-1);
    setAnnouncement(`${place.label} picked. Save to keep it.`);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    const n = places.length;
    switch (e.key) {
      case "ArrowDown":
        e.preventDefault();
        setOpen(true);
        if (n > 0) setActive((i) => (!open || i < 0 ? 0 : (i + 1) % n));
        break;
      case "ArrowUp":
        e.preventDefault();
        setOpen(true);
        if (n > 0) setActive((i) => (!open || i < 0 ? n - 1 : (i - 1 + n) % n));
        break;
      case "Enter": {
        // Never submits the surrounding form while the list is showing.
        if (!showPopup) break;
        e.preventDefault();
        const place = active >= 0 ? places[active] : undefined;
        if (place) pick(place);
        break;
      }
      case "Escape":
        if (showPopup) {
          e.preventDefault();
          setOpen(false);
          setActive(-1);
        } else if (text) {
          e.preventDefault();
          setText("");
          setTerm("");
        }
        break;
      case "Tab":
        setOpen(false);
        break;
    }
  };

  const activeId = expanded && active >= 0 && active < places.length ? `${id}-place-${active}` : undefined;

  return (
    <div className="relative">
      <input
        id={inputId}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listboxId}
        aria-activedescendant={activeId}
        aria-describedby={describedBy}
        autoComplete="off"
        spellCheck={false}
        placeholder="Type a city or town, e.g. Lisbon"
        className={inputClass}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setTerm(e.target.value);
          setOpen(true);
          setActive(-1);
          setAnnouncement("");
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
        onFocus={() => {
          if (term.trim().length >= MIN_CHARS) setOpen(true);
        }}
      />
      <div
        className={`absolute inset-x-0 top-full z-20 mt-1 overflow-hidden rounded-md border border-stone-300 bg-white shadow-lg dark:border-stone-700 dark:bg-stone-900 ${
          showPopup && (message || expanded) ? "" : "hidden"
        }`}
        data-testid="place-search-popup"
      >
        {message ? (
          <p
            className={`px-3 py-2 text-sm ${
              message.tone === "error" ? "text-red-700 dark:text-red-300" : "text-stone-600 dark:text-stone-300"
            }`}
            data-testid={message.tone === "error" ? "place-search-error" : "place-search-message"}
          >
            {message.text}
          </p>
        ) : null}
        <div
          id={listboxId}
          role="listbox"
          aria-label="Places"
          className={expanded ? "max-h-72 overflow-y-auto py-1" : "hidden"}
        >
          {places.map((place, i) => (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard stays in the combobox input (aria-activedescendant), whose onKeyDown picks
            <div
              key={place.id}
              tabIndex={-1}
              id={`${id}-place-${i}`}
              role="option"
              aria-selected={i === active}
              className={`cursor-pointer px-3 py-2 text-sm ${
                i === active ? "bg-stone-200 dark:bg-stone-700" : "hover:bg-stone-100 dark:hover:bg-stone-800"
              }`}
              // Keeps focus in the input, so blur does not close the list before the click lands.
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => pick(place)}
              onMouseMove={() => setActive(i)}
            >
              <span className="block font-medium">{place.label}</span>
              <span className="block text-xs text-stone-600 dark:text-stone-300">
                {coords(place)}
                {place.timezone ? ` · ${place.timezone}` : ""}
              </span>
            </div>
          ))}
        </div>
      </div>
      <p className="sr-only" role="status" aria-live="polite">
        {liveText}
      </p>
    </div>
  );
}
