import type { MetadataRoute } from "next";

/**
 * robots.txt (docs/operations.md, "Deploy"): a person's own instance, so crawlers may read the sign-in page and
 * nothing behind it — every other page needs a session and answers a redirect to sign-in, and the API needs a token.
 */
export default function robots(): MetadataRoute.Robots {
  return {
    rules: {
      userAgent: "*",
      allow: ["/$", "/sign-in"],
      disallow: ["/api/", "/trackers", "/settings", "/system", "/inbox", "/invite/", "/setup-owner", "/sign-up"],
    },
  };
}
