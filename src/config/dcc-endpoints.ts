/**
 * `--dcc-endpoint NAME=URL`: the MCP server of a DCC's adapter that
 * `recipes__run` drives. Flags and the environment give `NAME=URL` only; the
 * config file may also give a mapping `{dcc, url, headers}` because headers
 * carry secrets (a bearer token) that must not sit in a process listing.
 */
import type { DccEndpointConfig } from "./types.js";

export class EndpointError extends Error {}

/** An entry of the config file's `dcc-endpoint` list: `NAME=URL` or a mapping. */
export type EndpointEntry = string | Readonly<Record<string, unknown>>;

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;
/** Headers the client sets itself; a config that sets them would break the protocol. */
const RESERVED_HEADERS = new Set(["content-type", "accept", "mcp-session-id", "mcp-protocol-version", "content-length", "host"]);
const MAX_HEADERS = 16;
const MAX_HEADER_VALUE = 8192;

function checkUrl(raw: string, where: string): string {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new EndpointError(`${where}: "${shorten(text)}" is not a URL (expected NAME=http://host:port/mcp)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new EndpointError(`${where}: the URL must be http(s), got ${url.protocol}`);
  // Credentials in the URL would be echoed by every banner and log: the headers are the place for them.
  if (url.username !== "" || url.password !== "") throw new EndpointError(`${where}: put credentials in the config file's headers, not in the URL`);
  return url.toString();
}

function shorten(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?").slice(0, 80);
}

function checkHeaders(raw: unknown, where: string): Readonly<Record<string, string>> {
  if (raw === undefined || raw === null) return Object.freeze({});
  if (typeof raw !== "object" || Array.isArray(raw)) throw new EndpointError(`${where}: headers must be a mapping of header names to strings`);
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) throw new EndpointError(`${where}: more than ${MAX_HEADERS} headers`);
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) throw new EndpointError(`${where}: "${shorten(name)}" is not a header name`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new EndpointError(`${where}: header "${name}" is set by the MCP client itself`);
    // The value is a secret: the message names the header, never its value.
    if (typeof value !== "string" || value.length > MAX_HEADER_VALUE || /[\r\n\u0000]/.test(value)) {
      throw new EndpointError(`${where}: header "${name}" must be a single-line string of at most ${MAX_HEADER_VALUE} characters`);
    }
    headers[name] = value;
  }
  return Object.freeze({ ...headers });
}

function parseOne(entry: EndpointEntry, source: string): { dcc: string; url: string; headers: Readonly<Record<string, string>> } {
  if (typeof entry === "string") {
    const at = entry.indexOf("=");
    if (at <= 0) throw new EndpointError(`${source} "${shorten(entry)}" must be NAME=URL, e.g. blender=http://127.0.0.1:9876/mcp`);
    const dcc = entry.slice(0, at).trim().toLowerCase();
    return { dcc, url: checkUrl(entry.slice(at + 1), `${source} ${dcc}`), headers: Object.freeze({}) };
  }
  const known = new Set(["dcc", "url", "headers"]);
  for (const key of Object.keys(entry)) {
    if (!known.has(key)) throw new EndpointError(`${source}: unknown key "${shorten(key)}" in an endpoint (dcc, url, headers)`);
  }
  const dcc = entry["dcc"];
  const url = entry["url"];
  if (typeof dcc !== "string" || dcc.trim() === "") throw new EndpointError(`${source}: an endpoint mapping needs "dcc"`);
  if (typeof url !== "string") throw new EndpointError(`${source} ${dcc}: an endpoint mapping needs "url"`);
  const name = dcc.trim().toLowerCase();
  return { dcc: name, url: checkUrl(url, `${source} ${name}`), headers: checkHeaders(entry["headers"], `${source} ${name}`) };
}

/**
 * The endpoints, each checked: a well-formed `NAME=URL`, a DCC this daemon
 * serves (`dccs`), at most one endpoint per DCC. `source` names where the
 * entries came from, for the message.
 */
export function parseDccEndpoints(entries: readonly EndpointEntry[], dccs: readonly string[], source: string): readonly DccEndpointConfig[] {
  const out: DccEndpointConfig[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const parsed = parseOne(entry, source);
    if (!dccs.includes(parsed.dcc)) {
      throw new EndpointError(`${source} "${shorten(parsed.dcc)}" names a DCC this server does not serve (--dcc ${dccs.join(", --dcc ")})`);
    }
    if (seen.has(parsed.dcc)) throw new EndpointError(`${source} "${parsed.dcc}" given twice: one endpoint per DCC`);
    seen.add(parsed.dcc);
    out.push(Object.freeze(parsed));
  }
  return Object.freeze(out);
}

/** What may be shown of an endpoint (banner, /readyz, logs): never its headers. */
export function publicEndpoint(endpoint: DccEndpointConfig): { dcc: string; url: string; headers: string[] } {
  return { dcc: endpoint.dcc, url: endpoint.url, headers: Object.keys(endpoint.headers) };
}
