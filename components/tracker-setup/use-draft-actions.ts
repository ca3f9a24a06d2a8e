"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { afterLockHref } from "./setup-view";
import type { TSetupConversation } from "./use-setup-conversation";

/**
 * What the card and the panels beside the chat do to the draft: direct edits (validated by the server, a rejection
 * shown inline on the card), the read-mode switch (the sample read again that way), files attached while drafting
 * (a stated "our price is 10.00" becomes a rule on the card), and Lock.
 */
export function useDraftActions(conversation: TSetupConversation) {
  const trpc = useTRPC();
  const router = useRouter();
  const { session, setSavedDraft, setNotice, editedFrom, busy } = conversation;
  const saveDraft = useMutation(trpc.setup.saveDraft.mutationOptions());
  const lock = useMutation(trpc.setup.lock.mutationOptions());
  const applyContextFiles = useMutation(trpc.setup.applyContextFiles.mutationOptions());
  const setReadMode = useMutation(trpc.setup.setReadMode.mutationOptions());
  /** Bumped when the sample is read again another way, so the page view asks for the new page. */
  const [readCount, setReadCount] = useState(0);

  const saveDefinition = async (definition: unknown) => {
    if (!session.current.id) throw new Error("There is no conversation to save this draft to yet.");
    setSavedDraft(await saveDraft.mutateAsync({ sessionId: session.current.id, definition }));
  };

  const switchReadMode = async (render: "auto" | "always" | "never") => {
    if (!session.current.id) throw new Error("There is no conversation to change yet.");
    const result = await setReadMode.mutateAsync({ sessionId: session.current.id, render });
    if (result.draft) setSavedDraft(result.draft);
    setReadCount((n) => n + 1);
    setNotice({ tone: "info", text: result.said.join(" ") });
  };

  const applyFiles = applyContextFiles.mutateAsync;
  const takeInFiles = useCallback(async () => {
    if (!session.current.id) return;
    try {
      const applied = await applyFiles({ sessionId: session.current.id });
      if (applied?.draft) setSavedDraft(applied.draft);
      const said = applied ? [...applied.said, ...applied.questions] : [];
      if (said.length > 0) setNotice({ tone: "info", text: said.join(" ") });
    } catch (e) {
      setNotice({ tone: "error", text: e instanceof Error ? e.message : String(e) });
    }
  }, [applyFiles, session, setSavedDraft, setNotice]);
  // A file attached while a reply is being written waits for it: that turn may be saving an edit the person asked for,
  // which a save from here would overwrite (docs/context-files.md, "While drafting").
  const [filesWaiting, setFilesWaiting] = useState(false);
  const onFilesAttached = useCallback(async () => {
    if (busy) setFilesWaiting(true);
    else await takeInFiles();
  }, [busy, takeInFiles]);
  useEffect(() => {
    if (busy || !filesWaiting) return;
    setFilesWaiting(false);
    void takeInFiles();
  }, [busy, filesWaiting, takeInFiles]);

  const onLock = async () => {
    if (!session.current.id) return;
    setNotice(null);
    try {
      const result = await lock.mutateAsync({ sessionId: session.current.id });
      router.push(afterLockHref(result.trackerId, editedFrom, result.version));
    } catch (e) {
      setNotice({ tone: "error", text: e instanceof Error ? e.message : String(e) });
    }
  };

  return { saveDefinition, switchReadMode, onFilesAttached, onLock, locking: lock.isPending, readCount };
}
