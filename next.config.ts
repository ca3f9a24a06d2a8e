import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // These load WASM / native sockets at run time and must not be bundled.
  serverExternalPackages: ["pg", "@electric-sql/pglite", "@electric-sql/pglite-pgvector", "pglite-prisma-adapter"],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
