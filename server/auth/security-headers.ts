/**
 * Response security headers. The CSP is built per request by the Next proxy with a fresh nonce: Next puts the
 * nonce on its own inline bootstrap scripts when it finds it in the request's CSP header (every page here is
 * dynamically rendered), so scripts need neither 'unsafe-inline' nor hashes, and 'strict-dynamic' lets the
 * nonce'd bootstrap load the page's chunks. Styles allow 'unsafe-inline': React renders style attributes
 * (chart bars, progress widths) that cannot carry a nonce, and injected CSS cannot run code.
 */

/** Headers that do not vary per request (next.config.ts sends them on every response, static files included). */
export const STATIC_SECURITY_HEADERS: { key: string; value: string }[] = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  // Invite links carry their token in the path; no other site ever sees our URLs.
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
];

export function contentSecurityPolicy(options: { nonce: string; dev: boolean; https: boolean }): string {
  const directives = [
    "default-src 'self'",
    // 'unsafe-eval' only for the dev server (React's dev tooling reconstructs stacks with eval).
    `script-src 'self' 'nonce-${options.nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    // Only behind https: on a plain-http LAN install it would send every same-origin request to a dead port.
    ...(options.https ? ["upgrade-insecure-requests"] : []),
  ];
  return directives.join("; ");
}

/** A CSP nonce: 128 random bits, base64. */
export function createNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}
