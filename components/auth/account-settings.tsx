"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import { buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";
import { PASSWORD_MIN_LENGTH, ZPasswordSchema } from "@/contracts/account";
import { authClient, authErrorMessage, goTo } from "./auth-client";
import { Field, FormError } from "./form-fields";

function Panel({ title, id, children }: { title: string; id: string; children: ReactNode }) {
  return (
    <section
      aria-labelledby={id}
      className="rounded-xl border border-stone-200 bg-white p-6 dark:border-stone-800 dark:bg-stone-900"
    >
      <h2 id={id} className="text-base font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** Settings → Account: password, signed-in browsers; for the owner also invites and open sign-up. */
export function AccountSettings({ user }: { user: { name: string; email: string | null; isOwner: boolean } }) {
  return (
    <div className="space-y-6">
      <Panel title="Account" id="settings-account">
        <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">
          Signed in as <span className="font-medium text-stone-900 dark:text-stone-100">{user.name}</span>
          {user.email ? ` (${user.email})` : null}
          {user.isOwner ? " · owner of this Bellwether" : null}
        </p>
        <ChangePassword email={user.email} />
        <Sessions />
      </Panel>
      {user.isOwner ? (
        <Panel title="People" id="settings-people">
          <OpenSignUp />
          <Invites />
        </Panel>
      ) : null}
    </div>
  );
}

function ChangePassword({ email }: { email: string | null }) {
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [pending, setPending] = useState(false);
  const queryClient = useQueryClient();
  const trpc = useTRPC();

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const formElement = e.currentTarget;
    const form = new FormData(formElement);
    setDone(false);
    const next = ZPasswordSchema.safeParse(form.get("new-password"));
    if (!next.success) return setError(next.error.issues[0]?.message ?? "Choose another password.");
    if (form.get("confirm-password") !== next.data) return setError("The two new passwords do not match.");
    setPending(true);
    setError(null);
    const { error: failed } = await authClient.changePassword({
      currentPassword: String(form.get("current-password") ?? ""),
      newPassword: next.data,
      revokeOtherSessions: form.get("sign-out-others") === "on",
    });
    setPending(false);
    if (failed) return setError(authErrorMessage(failed));
    formElement.reset();
    setDone(true);
    await queryClient.invalidateQueries(trpc.account.sessions.queryFilter());
  };

  return (
    <form onSubmit={submit} className="mt-4 max-w-md space-y-3" aria-describedby="change-password-error" noValidate>
      <h3 className="text-sm font-semibold">Change password</h3>
      {/* Lets password managers file the new password under the right account. */}
      <input type="email" name="username" autoComplete="username" value={email ?? ""} readOnly hidden />
      <Field
        id="current-password"
        name="current-password"
        type="password"
        label="Current password"
        autoComplete="current-password"
        required
      />
      <Field
        id="new-password"
        name="new-password"
        type="password"
        label="New password"
        autoComplete="new-password"
        required
        minLength={PASSWORD_MIN_LENGTH}
        hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}
      />
      <Field
        id="confirm-password"
        name="confirm-password"
        type="password"
        label="New password again"
        autoComplete="new-password"
        required
      />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="sign-out-others" defaultChecked className="size-4" />
        Sign out my other browsers
      </label>
      <FormError id="change-password-error" message={error} />
      {done ? (
        <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
          Password changed.
        </p>
      ) : null}
      <button type="submit" className={buttonPrimary} disabled={pending}>
        {pending ? "Changing…" : "Change password"}
      </button>
    </form>
  );
}

function describeAgent(agent: string | null): string {
  if (!agent) return "Unknown browser";
  const browser = /Edg\//.test(agent)
    ? "Edge"
    : /Firefox\//.test(agent)
      ? "Firefox"
      : /Chrome\//.test(agent)
        ? "Chrome"
        : /Safari\//.test(agent)
          ? "Safari"
          : "Browser";
  const os = /Android/.test(agent)
    ? "Android"
    : /iPhone|iPad/.test(agent)
      ? "iOS"
      : /Mac OS X/.test(agent)
        ? "macOS"
        : /Windows/.test(agent)
          ? "Windows"
          : /Linux/.test(agent)
            ? "Linux"
            : null;
  return os ? `${browser} on ${os}` : browser;
}

function Sessions() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const sessions = useQuery(trpc.account.sessions.queryOptions());
  const revoke = useMutation(
    trpc.account.revokeSession.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.account.sessions.queryFilter()),
    }),
  );

  return (
    <div className="mt-8">
      <h3 className="text-sm font-semibold">Signed-in browsers</h3>
      {sessions.isPending ? <p className="mt-2 text-sm">Loading…</p> : null}
      {sessions.isError ? (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {sessions.error.message}
        </p>
      ) : null}
      <ul className="mt-2 divide-y divide-stone-200 text-sm dark:divide-stone-800">
        {sessions.data?.map((s) => (
          <li key={s.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2" data-testid="session-row">
            <span className="font-medium">{describeAgent(s.userAgent)}</span>
            {s.current ? (
              <span className="rounded-full bg-emerald-100 px-2 py-0.5 text-xs text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200">
                this browser
              </span>
            ) : null}
            <span className="text-xs text-stone-600 dark:text-stone-400">
              {s.ipAddress ? `${s.ipAddress} · ` : ""}signed in <LocalTime value={s.createdAt} /> · last seen{" "}
              <LocalTime value={s.lastSeenAt} />
            </span>
            <button
              type="button"
              className={`${buttonSecondary} ml-auto`}
              disabled={revoke.isPending}
              onClick={() =>
                revoke.mutate({ sessionId: s.id }, { onSuccess: () => (s.current ? goTo("/sign-in") : undefined) })
              }
            >
              {s.current ? "Sign out" : "Revoke"}
            </button>
          </li>
        ))}
      </ul>
      {revoke.isError ? (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {revoke.error.message}
        </p>
      ) : null}
    </div>
  );
}

function OpenSignUp() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const access = useQuery(trpc.account.access.queryOptions());
  const toggle = useMutation(
    trpc.account.setOpenSignUp.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.account.access.queryKey(), data),
    }),
  );
  return (
    <div className="mt-3">
      <label className="flex items-start gap-2 text-sm">
        <input
          type="checkbox"
          className="mt-0.5 size-4"
          checked={access.data?.openSignUp ?? false}
          disabled={!access.data || toggle.isPending}
          onChange={(e) => toggle.mutate({ open: e.target.checked })}
          data-testid="open-sign-up"
        />
        <span>
          <span className="font-medium">Open sign-up</span>
          <span className="block text-xs text-stone-600 dark:text-stone-400">
            Anyone who can open this site may create an account at /sign-up. Off: only people you invite.
          </span>
        </span>
      </label>
      {toggle.isError ? (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {toggle.error.message}
        </p>
      ) : null}
    </div>
  );
}

function Invites() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [note, setNote] = useState("");
  const [copied, setCopied] = useState(false);
  const invites = useQuery(trpc.account.invites.queryOptions());
  const invalidate = () => queryClient.invalidateQueries(trpc.account.invites.queryFilter());
  const create = useMutation(
    trpc.account.createInvite.mutationOptions({
      onSuccess: ({ invite }) => {
        // Shown at once, whatever a list request still in flight returns; then refreshed from the server.
        queryClient.setQueryData(trpc.account.invites.queryKey(), (old) => [
          invite,
          ...(old ?? []).filter((i) => i.id !== invite.id),
        ]);
        return invalidate();
      },
    }),
  );
  const revoke = useMutation(trpc.account.revokeInvite.mutationOptions({ onSuccess: invalidate }));
  const link = create.data ? `${window.location.origin}/invite/${create.data.token}` : null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setCopied(false);
    create.mutate({ note: note || undefined }, { onSuccess: () => setNote("") });
  };
  const copy = async () => {
    if (!link) return;
    await navigator.clipboard.writeText(link).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };

  return (
    <div className="mt-6">
      <h3 className="text-sm font-semibold">Invite someone</h3>
      <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">
        Each link works once and expires after 7 days. Invited people get their own empty feed and trackers.
      </p>
      <form onSubmit={submit} className="mt-3 flex flex-wrap items-end gap-2">
        <label className="text-sm">
          <span className="block font-medium">For (optional)</span>
          <input
            value={note}
            onChange={(e) => setNote(e.target.value)}
            placeholder="e.g. Sam"
            maxLength={200}
            className="mt-1 rounded-md border border-stone-300 bg-white px-2 py-1 dark:border-stone-700 dark:bg-stone-950"
          />
        </label>
        <button type="submit" className={buttonPrimary} disabled={create.isPending}>
          Create invite link
        </button>
      </form>
      {create.isError ? (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {create.error.message}
        </p>
      ) : null}
      {link ? (
        <div role="status" className="mt-3 rounded-md bg-amber-50 p-3 text-sm dark:bg-amber-950">
          <p className="font-medium">Send this link — it is shown only now:</p>
          <code data-testid="invite-link" className="mt-1 block break-all select-all">
            {link}
          </code>
          <button type="button" className={`${buttonSecondary} mt-2`} onClick={copy}>
            {copied ? "Copied" : "Copy link"}
          </button>
        </div>
      ) : null}
      {invites.data?.length ? (
        <ul className="mt-4 divide-y divide-stone-200 text-sm dark:divide-stone-800">
          {invites.data.map((invite) => (
            <li key={invite.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2" data-testid="invite-row">
              <span className="font-medium">{invite.note || "Invite"}</span>
              <span className="text-xs text-stone-600 dark:text-stone-400">
                {invite.status === "pending" ? (
                  <>
                    expires <LocalTime value={invite.expiresAt} />
                  </>
                ) : invite.status === "used" ? (
                  `used by ${invite.usedBy?.email ?? invite.usedBy?.name ?? "someone"}`
                ) : (
                  invite.status
                )}
              </span>
              {invite.status === "pending" ? (
                <button
                  type="button"
                  className={`${buttonSecondary} ml-auto`}
                  disabled={revoke.isPending}
                  onClick={() => revoke.mutate({ inviteId: invite.id })}
                >
                  Withdraw
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
