import type { z } from "zod";
import type { TDb } from "@/server/db";
import type { TRefreshOptions } from "@/server/intelligence/refresh";

/**
 * One public REST route: its contract (request and response schemas from contracts/), where each request field
 * comes from, and the one domain call it makes. The dispatcher, the OpenAPI document and the tests all read the
 * same table (routes.ts), so a route cannot be served without being documented and tested.
 */
export type THttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type TRestContext = {
  db: TDb;
  userId: string;
  /** Test seams for refreshes made through the API (fixture capabilities, models); create checks its target with
   * the same capabilityConfig (allowed hosts, resolver). */
  refreshSeams?: Omit<TRefreshOptions, "trigger" | "idempotencyKey">;
};

// biome-ignore lint/suspicious/noExplicitAny: the table holds routes of different schemas
export type TAnyObjectSchema = z.ZodObject<any>;

export type TRestRoute<Req extends TAnyObjectSchema = TAnyObjectSchema, Res extends z.ZodType = z.ZodType> = {
  method: THttpMethod;
  /** OpenAPI-style template under /api/v1, e.g. `/trackers/{trackerId}/timeline`. */
  path: string;
  operationId: string;
  summary: string;
  request: Req;
  /** Request fields read from headers (field → header name); path fields come from the template; the rest from
   * the query string (GET, DELETE) or the JSON body. */
  headers?: Partial<Record<keyof z.infer<Req> & string, string>>;
  response: Res;
  /** The success status; a function when it depends on the answer (a replayed refresh is 200, a new one 201). */
  status: 200 | 201 | ((response: z.infer<Res>) => 200 | 201);
  handler: (ctx: TRestContext, input: z.infer<Req>) => Promise<z.input<Res>>;
};

export function defineRoute<Req extends TAnyObjectSchema, Res extends z.ZodType>(
  route: TRestRoute<Req, Res>,
): TRestRoute {
  return route as unknown as TRestRoute;
}

export const pathParamNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
