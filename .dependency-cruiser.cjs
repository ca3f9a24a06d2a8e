/**
 * The layer rules of docs/design.md §2, checked by `npm run lint` (so in CI) with dependency-cruiser.
 * docs/architecture.md draws the same picture; tests/unit/layer-rules.test.ts proves each rule fires.
 *
 * Arrows run one way: app → components → contracts / server/api → server/trackers, triggers, feed →
 * enhancement, notifications → intelligence → timeline, context → capabilities, ai, events → db, env.
 * A module may import its own level and any level below; never a level above.
 */

/** Server rooms from the top (0) down. Same-level imports are allowed (cycles are not). */
const LEVELS = [
  ["api", "auth"],
  ["trackers", "triggers", "feed", "api-tokens", "system"],
  ["enhancement", "notifications"],
  ["intelligence"],
  ["timeline", "context", "settings", "users", "usage", "retention"],
  ["capabilities", "ai", "events"],
];
/** The foundation every room may use: env, db, logger, errors, small pure helpers, the generated client. */
const FOUNDATION = "^server/(env|db|db-[a-z-]+|logger|errors|defer)\\.ts$|^server/(lib|lifecycle|generated)/";

const room = (names) => `^server/(${names.join("|")})/`;

/** For each level, a rule forbidding imports of every level above it. */
const layerRules = LEVELS.slice(1).map((names, i) => ({
  name: `layer-${names.join("-")}`,
  comment: `${names.join(", ")} may not import a higher room (${LEVELS.slice(0, i + 1)
    .flat()
    .join(", ")}); see docs/design.md §2`,
  severity: "error",
  from: { path: room(names) },
  to: { path: room(LEVELS.slice(0, i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "foundation-imports-no-room",
      comment: "env, db, logger and errors sit below every room",
      severity: "error",
      from: { path: FOUNDATION, pathNot: "^server/generated/" },
      to: { path: room(LEVELS.flat()) },
    },
    {
      name: "domain-no-framework",
      comment: "Domain code never imports Next, React or tRPC (docs/design.md §2); only server/api adapts them",
      severity: "error",
      from: { path: "^server/", pathNot: "^server/(api|auth)/" },
      to: { path: "node_modules/(next|react|react-dom|@trpc|@tanstack)/" },
    },
    {
      name: "domain-no-api",
      comment: "Domains never reach up into the transport layer",
      severity: "error",
      from: { path: "^server/", pathNot: "^server/(api|auth)/" },
      to: { path: "^server/api/" },
    },
    {
      name: "contracts-client-safe",
      comment: "contracts/ is shared with the browser: zod schemas and pure functions only, no server code",
      severity: "error",
      from: { path: "^contracts/" },
      to: { path: "^(server|components|app)/|node_modules/(next|@prisma|pg|@electric-sql)/" },
    },
    {
      name: "components-no-server-runtime",
      comment: "UI code imports server modules for types only; shared runtime code lives in contracts/",
      severity: "error",
      from: { path: "^components/" },
      // `import type` is erased at build time and never reaches the browser bundle.
      to: { path: "^server/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "components-types-from-contracts",
      comment:
        "UI types come from contracts/ or from the router's outputs (components/providers/router-outputs.ts): the only server module the UI names is the router's type",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^server/", pathNot: "^server/api/root\\.ts$" },
    },
    {
      name: "server-not-into-ui",
      comment: "Arrows run app → components → server, never back",
      severity: "error",
      from: { path: "^(server|contracts)/" },
      to: { path: "^(app|components)/" },
    },
    {
      name: "no-circular",
      comment: "Import cycles hide which room owns what",
      severity: "error",
      from: { path: "^(server|contracts|components)/" },
      to: { circular: true, dependencyTypesNot: ["type-only"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|\\.next|\\.test-data|server/generated)" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
