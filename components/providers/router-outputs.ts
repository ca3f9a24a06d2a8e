import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

/**
 * What each procedure answers, as the page receives it: components name their data by the procedure that sends it,
 * so they import one type from the server (the router, as every tRPC client does) and no server module.
 */
export type TRouterOutputs = inferRouterOutputs<AppRouter>;

export type TSetupState = TRouterOutputs["setup"]["state"];
export type TChannelView = TRouterOutputs["notification"]["channels"][number];
export type TSchedulerDetails = TRouterOutputs["system"]["scheduler"];
