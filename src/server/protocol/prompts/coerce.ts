/**
 * MCP prompt arguments arrive as strings; inputs_schema properties are
 * typed. The rule (README "Prompts and skills"), per argument, from the
 * property's `type` (or, without one, the JSON types of its `enum`/`const`):
 *
 * - a property that accepts strings, or declares no type: the string as sent;
 * - an empty string for a property that does not accept strings: not given
 *   (clients send "" for an optional argument left blank);
 * - otherwise the first of the declared types the text reads as: a JSON
 *   number for `number`/`integer`, `true`/`false` for `boolean`, `null` for
 *   `null`, JSON text of that kind for `object`/`array`;
 * - text that reads as none of them stays a string, and validation then
 *   names the field ("Expected type integer, got string").
 *
 * Arguments not in the schema pass as strings (the schema decides whether
 * they are allowed).
 */
import { isRecord, topLevelProperties } from "./arguments.js";

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export function coerceArguments(schema: unknown, args: Readonly<Record<string, string>>): Record<string, unknown> {
  const properties = topLevelProperties(schema);
  const entries: Array<[string, unknown]> = [];
  for (const [name, text] of Object.entries(args)) {
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    const types = declaredTypes(property);
    if (types === null || types.includes("string")) {
      entries.push([name, text]);
      continue;
    }
    if (text === "") continue;
    entries.push([name, readAs(types, text)]);
  }
  // fromEntries defines own properties: an argument named "__proto__" stays data.
  return Object.fromEntries(entries);
}

/** The JSON types a property admits, or null when it admits any. */
function declaredTypes(property: unknown): string[] | null {
  if (!isRecord(property)) return null;
  const type = property["type"];
  if (typeof type === "string") return [type];
  if (Array.isArray(type) && type.every((t) => typeof t === "string")) return type as string[];
  const values = Object.hasOwn(property, "const") ? [property["const"]] : Array.isArray(property["enum"]) ? property["enum"] : null;
  if (values === null || values.length === 0) return null;
  return [...new Set(values.map(jsonType))];
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "object" ? "object" : typeof value;
}

function readAs(types: readonly string[], text: string): unknown {
  const trimmed = text.trim();
  for (const type of types) {
    if ((type === "number" || type === "integer") && JSON_NUMBER.test(trimmed)) {
      const n = Number(trimmed);
      if (Number.isFinite(n)) return n;
    }
    if (type === "boolean" && (trimmed === "true" || trimmed === "false")) return trimmed === "true";
    if (type === "null" && trimmed === "null") return null;
    if ((type === "object" || type === "array") && (trimmed.startsWith("{") || trimmed.startsWith("["))) {
      const parsed = parseJson(trimmed);
      if (parsed !== undefined && jsonType(parsed) === type) return parsed;
    }
  }
  return text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
