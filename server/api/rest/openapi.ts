import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import { ZErrorBodySchema } from "@/contracts/common";
import { ZContextRuleSchema, ZContextValueSchema } from "@/contracts/definition/context-rule-schema";
import { ZExtractorSchema, ZFieldSchema } from "@/contracts/definition/field-schema";
import { ZIdentityRuleSchema } from "@/contracts/definition/identity-rule-schema";
import { ZMaterialityRuleSchema } from "@/contracts/definition/materiality-rule-schema";
import { ZTrackerDefinitionSchema } from "@/contracts/definition/tracker-definition-schema";
import { ZCapabilityInputBodySchema, ZDefinitionBodySchema } from "@/contracts/trackers";
import { listCapabilities } from "../../capabilities";
import { pathParamNames, type TRestRoute } from "./define-route";
import { REST_ROUTES } from "./routes";

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the same route table and contracts the adapter validates
 * with, so it cannot drift from what is served. Served at /api/v1/openapi.json.
 */

/**
 * The capability input as clients write it: any one of the registry's input schemas (each titled by its capability's
 * name), so a capability added to the registry is documented with it (docs/capabilities.md). anyOf, not oneOf: inputs
 * may overlap (web.scrape and web.pdf both take a url). Input side: defaults and transforms are the server's.
 */
function capabilityInputSchema(): z.ZodType {
  const inputs = listCapabilities().map((c) => c.inputSchema.meta({ title: c.name }));
  return z
    .union(inputs as [z.ZodType, ...z.ZodType[]])
    .meta({ id: "CapabilityInput", description: ZCapabilityInputBodySchema.description });
}

/**
 * Body fields the edge takes as plain objects and the server checks in full (contracts/trackers.ts), documented by
 * their full schema: a generated client can then type a definition and a capability input (docs/api.md).
 */
function documented(schema: z.ZodType | undefined): z.ZodType | undefined {
  if (schema === ZDefinitionBodySchema) return ZTrackerDefinitionSchema.meta({ id: "TrackerDefinition" });
  if (schema === ZCapabilityInputBodySchema) return capabilityInputSchema();
  return schema;
}

/** The part of a request schema with these keys (from its shape: `.pick` refuses refined objects). */
function pick(schema: TRestRoute["request"], keys: string[]) {
  return keys.length ? z.object(Object.fromEntries(keys.map((k) => [k, documented(schema.shape[k])]))) : undefined;
}

function operation(route: TRestRoute): ZodOpenApiOperationObject {
  const pathKeys = pathParamNames(route.path);
  const headerKeys = Object.keys(route.headers ?? {});
  const otherKeys = Object.keys(route.request.shape).filter((k) => !pathKeys.includes(k) && !headerKeys.includes(k));
  const inQuery = route.method === "GET" || route.method === "DELETE";
  const header = headerKeys.length
    ? z.object(
        Object.fromEntries(
          headerKeys.map((k) => [route.headers?.[k as keyof typeof route.headers] as string, route.request.shape[k]]),
        ),
      )
    : undefined;
  const successes = typeof route.status === "function" ? [200, 201] : [route.status];
  return {
    operationId: route.operationId,
    summary: route.summary,
    security: [{ bearerAuth: [] }],
    requestParams: {
      ...(pathKeys.length ? { path: pick(route.request, pathKeys) } : {}),
      ...(inQuery && otherKeys.length ? { query: pick(route.request, otherKeys) } : {}),
      ...(header ? { header } : {}),
    },
    ...(!inQuery && otherKeys.length
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: pick(route.request, otherKeys) as z.ZodType } },
          },
        }
      : {}),
    responses: {
      ...Object.fromEntries(
        successes.map((status) => [
          String(status),
          { description: "Success", content: { "application/json": { schema: route.response } } },
        ]),
      ),
      "4XX": {
        description: "Bad request, no or unknown token (401), not found (404), conflict, too large…",
        content: { "application/json": { schema: ZErrorBodySchema } },
      },
      "5XX": { description: "Server or upstream error", content: { "application/json": { schema: ZErrorBodySchema } } },
    },
  };
}

let cached: ReturnType<typeof createDocument> | undefined;

export function buildOpenApiDocument() {
  if (cached) return cached;
  const paths: ZodOpenApiPathsObject = {};
  for (const route of REST_ROUTES) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route) };
  }
  cached = createDocument(
    {
      openapi: "3.1.0",
      info: {
        title: "Bellwether API",
        version: "1",
        description:
          "Trackers, their timelines, the members of a set and refreshes. Authenticate with `Authorization: Bearer <token>` " +
          "(Settings → API tokens). Errors are `{error: {code, message, details?, fieldErrors?}}`.",
      },
      servers: [{ url: "/api/v1" }],
      components: {
        securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
        // The definition's parts as named schemas, so clients can name them too (materiality rules by `kind`).
        schemas: {
          Field: ZFieldSchema,
          Extractor: ZExtractorSchema,
          IdentityRule: ZIdentityRuleSchema,
          MaterialityRule: ZMaterialityRuleSchema,
          ContextValue: ZContextValueSchema,
          ContextRule: ZContextRuleSchema,
        },
      },
      paths,
    },
    {
      // JSON carries dates as ISO 8601 strings.
      override: ({ jsonSchema, zodSchema }) => {
        if (zodSchema._zod.def.type === "date") {
          jsonSchema.type = "string";
          jsonSchema.format = "date-time";
        }
      },
    },
  );
  return cached;
}
