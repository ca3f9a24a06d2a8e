/** Drops credentials and query strings from a URL so it can be shown or logged. Non-URLs pass through. */
export function redactUrl(value: string): string {
  if (!URL.canParse(value)) return value;
  const url = new URL(value);
  if (url.username || url.password) {
    url.username = url.username ? "***" : "";
    url.password = "";
  }
  // Query strings often carry tokens (sslpassword=…, api_key=…).
  url.search = "";
  return url.toString();
}
