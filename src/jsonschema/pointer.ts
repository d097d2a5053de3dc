/**
 * JSON Pointer (RFC 6901) helpers for schema locations and instance paths, and their
 * rendering the way dcc-mcp-core reports errors (`$.a.b[1]: message`).
 */
import type { ValidationError } from "./types.js";

export function escapeToken(key: string): string {
  // One scan of the (usually short) key; most keys need no escaping.
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c === 126 /* ~ */ || c === 47 /* / */) return key.replace(/~/g, "~0").replace(/\//g, "~1");
  }
  return key;
}

function unescapeToken(token: string): string {
  if (token.indexOf("~") === -1) return token;
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Appends one reference token to a pointer. Called only when errors are being built. */
export function childPointer(pointer: string, key: string | number): string {
  return typeof key === "number" ? `${pointer}/${key}` : `${pointer}/${escapeToken(key)}`;
}

/** Splits a pointer into unescaped tokens; returns null when it does not start with "/" (and is not ""). */
export function parsePointer(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (pointer[0] !== "/") return null;
  return pointer.slice(1).split("/").map(unescapeToken);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const INDEX = /^(?:0|[1-9][0-9]*)$/;

/** "/a/b/1" → "$.a.b[1]"; keys that are not identifiers become `$["odd key"]`. */
export function instancePathToDollar(pointer: string): string {
  if (pointer === "") return "$";
  let out = "$";
  const parts = pointer.split("/");
  // parts[0] is the empty string before the leading slash.
  for (let i = 1; i < parts.length; i++) {
    const key = parts[i]!.replace(/~1/g, "/").replace(/~0/g, "~");
    if (INDEX.test(key)) out += `[${key}]`;
    else if (IDENTIFIER.test(key)) out += `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

const REQUIRED_PREFIX = "Missing required property: ";

/**
 * dcc-mcp-core's rendering. `subject` names what a root-level `required`
 * failure is missing: an "input" for inputs_schema, an "output field" when an
 * observed result is checked against an output_contract.
 */
export function renderErrors(errors: readonly ValidationError[], subject = "input"): string[] {
  const out: string[] = [];
  for (const e of errors) {
    if (e.keyword === "required" && e.instancePath === "" && e.message.startsWith(REQUIRED_PREFIX)) {
      out.push(`Missing required ${subject}: ${e.message.slice(REQUIRED_PREFIX.length)}`);
    } else {
      out.push(`${instancePathToDollar(e.instancePath)}: ${e.message}`);
    }
  }
  return out;
}
