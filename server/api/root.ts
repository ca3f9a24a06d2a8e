import { accountRouter } from "./routers/account";
import { apiTokenRouter } from "./routers/api-token";
import { contextFileRouter } from "./routers/context-file";
import { feedRouter } from "./routers/feed";
import { notificationRouter } from "./routers/notification";
import { settingsRouter } from "./routers/settings";
import { setupRouter } from "./routers/setup";
import { systemRouter } from "./routers/system";
import { trackerRouter } from "./routers/tracker";
import { userRouter } from "./routers/user";
import { createCallerFactory, createTRPCRouter } from "./trpc";

export const appRouter = createTRPCRouter({
  feed: feedRouter,
  settings: settingsRouter,
  setup: setupRouter,
  system: systemRouter,
  user: userRouter,
  tracker: trackerRouter,
  apiToken: apiTokenRouter,
  account: accountRouter,
  notification: notificationRouter,
  contextFile: contextFileRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side caller: `createCaller(ctx).system.status()`. */
export const createCaller = createCallerFactory(appRouter);
