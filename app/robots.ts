import type { MetadataRoute } from "next";

/**
 * robots.txt (docs/operations.md, "Deploy"): a person's own instance. The app's pages may be crawled — without a
 * session each one answers a redirect to sign-in, which is all a crawler ever sees, and the session, not robots.txt,
 * is what keeps them private; disallowing them only made Lighthouse report every page as blocked from indexing
 * (tests/e2e/lighthouse-seo.spec.ts). The API (JSON behind a token), invitation links (a secret in the path) and the
 * account-creation pages stay disallowed.
 */
export default function robots(): MetadataRoute.Robots {
  return {
    rules: {
      userAgent: "*",
      allow: "/",
      disallow: ["/api/", "/invite/", "/setup-owner", "/sign-up"],
    },
  };
}
