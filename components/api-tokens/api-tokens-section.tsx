"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import { buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";

/** Settings → API tokens: create (shown once), list, revoke. */
export function ApiTokensSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const tokens = useQuery(trpc.apiToken.list.queryOptions());
  const invalidate = () => queryClient.invalidateQueries(trpc.apiToken.list.queryFilter());
  const create = useMutation(trpc.apiToken.create.mutationOptions({ onSuccess: invalidate }));
  const revoke = useMutation(trpc.apiToken.revoke.mutationOptions({ onSuccess: invalidate }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name }, { onSuccess: () => setName("") });
  };

  return (
    <section
      aria-labelledby="settings-api-tokens"
      className="rounded-xl border border-stone-200 bg-white p-6 dark:border-stone-800 dark:bg-stone-900"
    >
      <h2 id="settings-api-tokens" className="text-base font-semibold">
        API tokens
      </h2>
      <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">
        For the public API (<code>/api/v1</code>, see docs/api.md). Send as{" "}
        <code>Authorization: Bearer &lt;token&gt;</code>.
      </p>
      <form onSubmit={submit} className="mt-4 flex flex-wrap items-end gap-2">
        <label className="text-sm">
          <span className="block font-medium">Token name</span>
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. CI script"
            required
            maxLength={100}
            className="mt-1 rounded-md border border-stone-300 bg-white px-2 py-1 dark:border-stone-700 dark:bg-stone-950"
          />
        </label>
        <button type="submit" className={buttonPrimary} disabled={create.isPending}>
          Create token
        </button>
      </form>
      {create.isError ? (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {create.error.message}
        </p>
      ) : null}
      {create.data ? (
        <div role="status" className="mt-3 rounded-md bg-amber-50 p-3 text-sm dark:bg-amber-950">
          <p className="font-medium">Copy this token now — it will not be shown again:</p>
          <code data-testid="new-api-token" className="mt-1 block break-all select-all">
            {create.data.token}
          </code>
        </div>
      ) : null}
      {tokens.isPending ? <p className="mt-3 text-sm">Loading tokens…</p> : null}
      {tokens.data?.length ? (
        <ul className="mt-4 divide-y divide-stone-200 text-sm dark:divide-stone-800">
          {tokens.data.map((t) => (
            <li key={t.id} className="flex flex-wrap items-center gap-2 py-2" data-testid="api-token-row">
              <span className="font-medium">{t.name}</span>
              <code className="text-xs text-stone-600 dark:text-stone-400">{t.prefix}…</code>
              <span className="text-xs text-stone-600 dark:text-stone-400">
                created <LocalTime value={t.createdAt} />
                {t.lastUsedAt ? (
                  <>
                    {" "}
                    · last used <LocalTime value={t.lastUsedAt} />
                  </>
                ) : (
                  " · never used"
                )}
              </span>
              {t.revokedAt ? (
                <span className="ml-auto text-xs text-stone-600 dark:text-stone-400">revoked</span>
              ) : (
                <button
                  type="button"
                  className={`${buttonSecondary} ml-auto`}
                  disabled={revoke.isPending}
                  onClick={() => revoke.mutate({ tokenId: t.id })}
                >
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : tokens.data ? (
        <p className="mt-3 text-sm text-stone-600 dark:text-stone-400">No tokens yet.</p>
      ) : null}
    </section>
  );
}
