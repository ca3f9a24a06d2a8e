import { systemRouter } from "./routers/system";
import { userRouter } from "./routers/user";
import { createCallerFactory, createTRPCRouter } from "./trpc";

export const appRouter = createTRPCRouter({
  system: systemRouter,
  user: userRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side caller: `createCaller(ctx).system.status()`. */
export const createCaller = createCallerFactory(appRouter);
