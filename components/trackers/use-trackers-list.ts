"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { listHref, listInput, readListParams, type TFilter } from "./tracker-filters";

/**
 * The trackers page's state: the view the address asks for (`?show=…&q=…`, docs/trackers.md "Paging, search and
 * filters"), its pages (the first prefetched on the server with the same input), the selection among the trackers
 * shown and the bulk status change with its archive confirmation, and the line a screen reader hears after an action.
 */
export function useTrackersList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const search = useSearchParams();
  const params = readListParams((name) => search.get(name));
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirmArchive, setConfirmArchive] = useState(false);
  const [announcement, setAnnouncement] = useState("");
  const archiveConfirmRef = useRef<HTMLButtonElement>(null);
  const list = useInfiniteQuery({
    ...trpc.tracker.listView.infiniteQueryOptions(listInput(params), {
      getNextPageParam: (last) => last.nextCursor ?? undefined,
      // ?after=… is the no-JavaScript "Load more": that page, read on the server.
      initialCursor: params.after,
    }),
    // A new filter or search keeps the list on screen until its answer comes.
    placeholderData: keepPreviousData,
  });
  const bulk = useMutation(
    trpc.tracker.setStatusMany.mutationOptions({
      onSuccess: (result, input) => {
        setSelected(new Set());
        setConfirmArchive(false);
        const verb = input.status === "archived" ? "archived" : input.status === "paused" ? "paused" : "resumed";
        const n = result.updated.length;
        setAnnouncement(`${n} tracker${n === 1 ? "" : "s"} ${verb}.`);
        return queryClient.invalidateQueries({ queryKey: trpc.tracker.pathKey() });
      },
    }),
  );
  useEffect(() => {
    if (confirmArchive) archiveConfirmRef.current?.focus();
  }, [confirmArchive]);

  const pages = list.data?.pages ?? [];
  const first = pages[0];
  const shown = pages.flatMap((p) => p.trackers);
  const chosen = shown.filter((t) => selected.has(t.id));
  const allChosen = shown.length > 0 && chosen.length === shown.length;

  const toggle = (id: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const setAll = (on: boolean) => setSelected(on ? new Set(shown.map((t) => t.id)) : new Set());
  const act = (status: "active" | "paused" | "archived") =>
    bulk.mutate({ trackerIds: chosen.map((t) => t.id), status });
  // Another filter or search is another address (linkable; Back returns to the last one) and starts a new selection.
  // history.pushState keeps Next's useSearchParams in step without a server round trip: the client reads the page.
  const choose = (next: { show: TFilter; q: string }) => {
    window.history.pushState(null, "", listHref({ show: next.show, q: next.q.trim() }));
    setSelected(new Set());
    setConfirmArchive(false);
  };

  return {
    list,
    params,
    first,
    bulk,
    choose,
    selected,
    shown,
    chosen,
    allChosen,
    toggle,
    setAll,
    act,
    confirmArchive,
    setConfirmArchive,
    archiveConfirmRef,
    announcement,
    setAnnouncement,
  };
}
