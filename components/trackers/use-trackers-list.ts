"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { matches, type TFilter } from "./tracker-filters";

/**
 * The trackers page's state: the list (prefetched on the server), the filter, the selection and the bulk status
 * change with its archive confirmation, and the line a screen reader hears after an action.
 */
export function useTrackersList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState<TFilter>("current");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirmArchive, setConfirmArchive] = useState(false);
  const [announcement, setAnnouncement] = useState("");
  const archiveConfirmRef = useRef<HTMLButtonElement>(null);
  const list = useQuery(trpc.tracker.listView.queryOptions());
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

  const shown = (list.data?.trackers ?? []).filter((t) => matches(t, filter));
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
  // Another filter starts a new selection.
  const chooseFilter = (next: TFilter) => {
    setFilter(next);
    setSelected(new Set());
    setConfirmArchive(false);
  };

  return {
    list,
    bulk,
    filter,
    chooseFilter,
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
