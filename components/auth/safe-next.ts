/**
 * Where to go after signing in: a same-site path from ?next=, or the feed. Never another origin: "//x" and "/\x"
 * are protocol-relative URLs to other sites. (Plain module: the sign-in page and form both use it.)
 */
export function safeNext(next: string | null | undefined): string {
  const path = next ?? "";
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return "/";
  return path;
}
