/**
 * The --store URL: checked once at config time, and shown everywhere
 * (logs, /readyz, messages) without its password.
 */
type StoreUrlCheck = { readonly ok: true; readonly location: string } | { readonly ok: false; readonly message: string };

export function checkStoreUrl(text: string): StoreUrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: "--store must be a postgres:// URL (postgres://user:password@host:5432/database)" };
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    return { ok: false, message: `--store must be a postgres:// URL, not ${url.protocol}//…` };
  }
  if (url.hostname === "" && !url.searchParams.has("host")) return { ok: false, message: "--store names no host" };
  if (url.pathname.length <= 1) return { ok: false, message: "--store names no database (postgres://host:5432/DATABASE)" };
  return { ok: true, location: redactStoreUrl(url) };
}

/** postgres://user@host:port/db: the password (and query, which may carry one) dropped. */
export function redactStoreUrl(url: URL | string): string {
  const parsed = typeof url === "string" ? safeUrl(url) : url;
  if (parsed === null) return "postgres://(unparseable URL)";
  const user = parsed.username !== "" ? `${parsed.username}@` : "";
  const port = parsed.port !== "" ? `:${parsed.port}` : "";
  return `${parsed.protocol}//${user}${parsed.hostname}${port}${parsed.pathname}`;
}

function safeUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}
