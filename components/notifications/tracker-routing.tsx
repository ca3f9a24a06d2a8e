"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { inputClass } from "@/components/ui/form-field";
import type { ROUTINGS, TTrackerRoutingInput } from "@/contracts/notifications";
import { ROUTING_LABEL, RoutingOptions } from "./notification-defaults";

/** The tracker page's notification routing: each choice is saved at once; "Default" follows Settings. */
export function TrackerRouting({ trackerId }: { trackerId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const id = useId();
  const routing = useQuery(trpc.notification.trackerRouting.queryOptions({ trackerId }));
  const save = useMutation(
    trpc.notification.updateTrackerRouting.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.notification.trackerRouting.queryKey({ trackerId }), data),
    }),
  );
  if (routing.isPending) return <p className="text-sm">Loading…</p>;
  if (routing.isError) return <p className="text-sm text-red-700 dark:text-red-300">{routing.error.message}</p>;
  const { own, effective } = routing.data;
  const change = (patch: Partial<Omit<TTrackerRoutingInput, "trackerId">>) =>
    save.mutate({ trackerId, material: own.material, notable: own.notable, failing: own.failing, ...patch });

  return (
    <div className="grid gap-3 text-sm sm:grid-cols-2" data-testid="tracker-routing">
      {(["material", "notable"] as const).map((key) => (
        <div key={key} className="flex flex-col gap-1">
          <label htmlFor={`${id}-${key}`} className="font-medium">
            {key === "material" ? "Material changes" : "Notable changes"}
          </label>
          <select
            id={`${id}-${key}`}
            className={inputClass}
            value={own[key] ?? ""}
            disabled={save.isPending}
            onChange={(e) =>
              change({ [key]: e.target.value === "" ? null : (e.target.value as (typeof ROUTINGS)[number]) })
            }
          >
            <option value="">Default ({ROUTING_LABEL[effective[key]].toLowerCase()})</option>
            <RoutingOptions />
          </select>
        </div>
      ))}
      {save.isError ? (
        <p role="alert" className="text-red-700 dark:text-red-300">
          {save.error.message}
        </p>
      ) : null}
    </div>
  );
}
