import type { NextConfig } from "next";
import { STATIC_SECURITY_HEADERS } from "./server/auth/security-headers";

const nextConfig: NextConfig = {
  // Build-tooling knob (not app config): lets parallel test runs in one checkout keep separate builds.
  distDir: process.env.BELLWETHER_DIST_DIR || ".next",
  // These load WASM / native sockets at run time and must not be bundled.
  serverExternalPackages: ["pg", "@electric-sql/pglite", "pglite-prisma-adapter"],
  poweredByHeader: false,
  // `npm run typecheck` (tsc over the whole project, tests included) runs in CI; repeating it inside every
  // `next build` doubled build time on 2-core machines.
  typescript: { ignoreBuildErrors: true },
  typedRoutes: false,
  // On every response, static files included; the per-request CSP comes from proxy.ts.
  headers: async () => [{ source: "/:path*", headers: STATIC_SECURITY_HEADERS }],
};

export default nextConfig;
