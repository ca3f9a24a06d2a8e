"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { LocalTime } from "@/components/format/local-time";
import type { TChannelView } from "@/components/providers/router-outputs";
import { useTRPC } from "@/components/providers/trpc";
import { buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";
import { fieldErrorsOf } from "@/components/ui/field-errors";
import { FormField, inputClass } from "@/components/ui/form-field";
import { CHANNEL_FORMS, CHANNEL_KINDS, type TChannelKind } from "@/contracts/notification-channel-kinds";

/** Settings → Notifications → Channels: add, Send test, last delivery status and error, resume, remove. */
export function NotificationChannels() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const id = useId();
  const [kind, setKind] = useState<TChannelKind>("webhook");
  const [target, setTarget] = useState("");
  const [name, setName] = useState("");
  const channels = useQuery(trpc.notification.channels.queryOptions());
  const invalidate = () => queryClient.invalidateQueries(trpc.notification.channels.queryFilter());
  const create = useMutation(trpc.notification.createChannel.mutationOptions({ onSuccess: invalidate }));
  const errors = fieldErrorsOf(create.error);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { kind, target, name },
      {
        onSuccess: () => {
          setTarget("");
          setName("");
        },
      },
    );
  };

  return (
    <div className="mt-3 space-y-4">
      <form
        onSubmit={submit}
        className="grid gap-3 sm:grid-cols-[auto_1fr_1fr_auto] sm:items-end"
        aria-label="Add a channel"
      >
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-kind`} className="text-sm font-medium">
            Kind
          </label>
          <select
            id={`${id}-kind`}
            value={kind}
            onChange={(e) => setKind(e.target.value as TChannelKind)}
            className={inputClass}
          >
            {CHANNEL_KINDS.map((k) => (
              <option key={k} value={k}>
                {CHANNEL_FORMS[k].label}
              </option>
            ))}
          </select>
        </div>
        <FormField
          id={`${id}-target`}
          label={CHANNEL_FORMS[kind].target.label}
          value={target}
          onChange={(e) => setTarget(e.target.value)}
          required
          type={CHANNEL_FORMS[kind].target.type}
          placeholder={CHANNEL_FORMS[kind].target.placeholder}
          hint={CHANNEL_FORMS[kind].target.help}
          error={errors.target ?? errors.kind}
        />
        <FormField
          id={`${id}-name`}
          label="Name (optional)"
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={80}
        />
        <button type="submit" className={buttonPrimary} disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add channel"}
        </button>
      </form>
      {create.isError && !errors.target && !errors.kind ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {create.error.message}
        </p>
      ) : null}
      {create.data?.secret ? (
        <div role="status" className="rounded-md bg-amber-50 p-3 text-sm dark:bg-amber-950">
          <p className="font-medium">Signing secret of “{create.data.channel.name}” (you can reveal it again later):</p>
          <code data-testid="new-channel-secret" className="mt-1 block break-all select-all">
            {create.data.secret}
          </code>
        </div>
      ) : null}
      {channels.isPending ? <p className="text-sm">Loading channels…</p> : null}
      {channels.isError ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          Could not load channels: {channels.error.message}
        </p>
      ) : null}
      {channels.data?.length ? (
        <ul className="divide-y divide-stone-200 dark:divide-stone-800">
          {channels.data.map((c) => (
            <ChannelRow key={c.id} channel={c} onChange={invalidate} />
          ))}
        </ul>
      ) : channels.data ? (
        <p className="text-sm text-stone-600 dark:text-stone-400">
          No channels yet. Changes still arrive in your inbox.
        </p>
      ) : null}
    </div>
  );
}

function ChannelRow({ channel: c, onChange }: { channel: TChannelView; onChange: () => void }) {
  const trpc = useTRPC();
  const [showLog, setShowLog] = useState(false);
  const test = useMutation(trpc.notification.sendTest.mutationOptions({ onSettled: onChange }));
  const resume = useMutation(trpc.notification.resumeChannel.mutationOptions({ onSuccess: onChange }));
  const remove = useMutation(trpc.notification.deleteChannel.mutationOptions({ onSuccess: onChange }));
  const reveal = useMutation(trpc.notification.revealSecret.mutationOptions());
  const log = useQuery({ ...trpc.notification.deliveries.queryOptions({ channelId: c.id }), enabled: showLog });
  const status = c.paused ? "paused" : (c.lastStatus ?? "never used");

  return (
    <li className="space-y-2 py-3 text-sm" data-testid="notification-channel">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium break-all">{c.name}</span>
        <span className="text-xs text-stone-600 dark:text-stone-400">{CHANNEL_FORMS[c.kind].label}</span>
        <span
          data-testid="channel-status"
          className={`rounded px-2 py-0.5 text-xs ${
            status === "sent"
              ? "bg-green-100 text-green-900 dark:bg-green-950 dark:text-green-200"
              : status === "failed" || status === "paused"
                ? "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200"
                : "bg-stone-100 text-stone-700 dark:bg-stone-800 dark:text-stone-300"
          }`}
        >
          {status === "sent" ? "delivered" : status}
        </span>
        {c.lastDeliveryAt ? (
          <span className="text-xs text-stone-600 dark:text-stone-400">
            last attempt <LocalTime value={c.lastDeliveryAt} />
          </span>
        ) : null}
      </div>
      <p className="text-xs break-all text-stone-600 dark:text-stone-400">{c.target}</p>
      {c.paused && c.pausedReason ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {c.pausedReason}
        </p>
      ) : c.lastError ? (
        <p className="text-sm text-red-700 dark:text-red-300" data-testid="channel-error">
          Last error: {c.lastError}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        {c.paused ? (
          <button type="button" className={buttonSecondary} onClick={() => resume.mutate({ channelId: c.id })}>
            Resume
          </button>
        ) : (
          <button
            type="button"
            className={buttonSecondary}
            disabled={test.isPending}
            onClick={() => test.mutate({ channelId: c.id })}
          >
            {test.isPending ? "Sending…" : "Send test"}
          </button>
        )}
        {c.hasSecret ? (
          <button type="button" className={buttonSecondary} onClick={() => reveal.mutate({ channelId: c.id })}>
            Reveal secret
          </button>
        ) : null}
        <button type="button" className={buttonSecondary} onClick={() => setShowLog((v) => !v)} aria-expanded={showLog}>
          {showLog ? "Hide log" : "Delivery log"}
        </button>
        <button
          type="button"
          className={buttonSecondary}
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(`Remove the channel “${c.name}”?`)) remove.mutate({ channelId: c.id });
          }}
        >
          Remove
        </button>
      </div>
      {test.isError ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {test.error.message}
        </p>
      ) : null}
      {reveal.data?.secret ? <code className="block text-xs break-all select-all">{reveal.data.secret}</code> : null}
      {showLog ? (
        log.data?.length ? (
          <ol className="space-y-1 text-xs" data-testid="delivery-log">
            {log.data.map((d) => (
              <li key={d.id}>
                {d.kind} · {d.status} · {d.attempts} attempt{d.attempts === 1 ? "" : "s"}
                {d.lastError ? ` · ${d.lastError}` : ""}
              </li>
            ))}
          </ol>
        ) : (
          <p className="text-xs text-stone-600 dark:text-stone-400">
            {log.isPending ? "Loading…" : "No deliveries yet."}
          </p>
        )
      ) : null}
    </li>
  );
}
