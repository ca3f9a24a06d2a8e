"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import type { TSetupState } from "@/components/providers/router-outputs";
import { useTRPC } from "@/components/providers/trpc";

const POLL_MS = 1_000;
const MAX_POLLS = 120;

/**
 * Reloaded while a turn was running: the server finishes and stores the reply whatever the page does,
 * so until it is stored the page polls the conversation (every second, at most two minutes) and hands
 * each newer state to `onState`. Idle otherwise.
 */
export function usePendingReply(input: {
  sessionId: string | null;
  waiting: boolean;
  onState: (state: TSetupState) => void;
}) {
  const trpc = useTRPC();
  const { sessionId, waiting, onState } = input;
  const query = useQuery({
    ...trpc.setup.state.queryOptions({ sessionId: sessionId ?? "" }),
    enabled: waiting && sessionId !== null,
    refetchOnWindowFocus: false,
    refetchInterval: (q) => (q.state.dataUpdateCount < MAX_POLLS ? POLL_MS : false),
  });
  useEffect(() => {
    if (waiting && query.data) onState(query.data);
  }, [waiting, query.data, onState]);
}
