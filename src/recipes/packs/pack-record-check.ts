/**
 * Whether a value read back from the parse cache has the PackRecord shape
 * the loader relies on (parse-cache.ts).
 */
import type { PackRecord } from "./parsed-pack.js";

const isString = (v: unknown): v is string => typeof v === "string";
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function isSchemaError(v: unknown): boolean {
  return v === null || (isRecord(v) && isString(v["code"]) && isString(v["message"]));
}

/** Offsets that start at 0, never go back and end at the body's end. */
function partsFit(offsets: unknown, bodyLength: number): boolean {
  if (!(offsets instanceof Uint32Array) || offsets.length < 2 || offsets[0] !== 0 || offsets[offsets.length - 1] !== bodyLength) return false;
  for (let i = 1; i < offsets.length; i++) if (offsets[i]! < offsets[i - 1]!) return false;
  return true;
}

/**
 * The shape the loader relies on. The state directory is ours, but a file
 * that deserialises to something else (another tool, a damaged disk) must
 * be a miss, never a crash at every start.
 */
export function isPackRecord(v: unknown): v is PackRecord {
  if (!isRecord(v) || typeof v["ok"] !== "boolean" || !(v["body"] instanceof Uint8Array) || !(v["text"] instanceof Uint8Array)) return false;
  if (!partsFit(v["bodyOffsets"], v["body"].length)) return false;
  const diagnostics = v["diagnostics"];
  const entries = v["entries"];
  if (!Array.isArray(diagnostics) || !Array.isArray(entries)) return false;
  if (!diagnostics.every((d) => isRecord(d) && isString(d["code"]) && isString(d["message"]) && isString(d["severity"]))) return false;
  // Part 0 is the pack-level keys, then one part per entry.
  if ((v["bodyOffsets"] as Uint32Array).length !== entries.length + 2) return false;
  return entries.every(
    (e) =>
      isRecord(e) &&
      isString(e["name"]) &&
      typeof e["line"] === "number" &&
      (e["dcc"] === null || isString(e["dcc"])) &&
      isString(e["description"]) &&
      Array.isArray(e["toolsetProfiles"]) &&
      e["toolsetProfiles"].every(isString) &&
      typeof e["stepsNotList"] === "boolean" &&
      typeof e["hasOutputSchema"] === "boolean" &&
      isRecord(e["verdicts"]) &&
      isSchemaError(e["verdicts"]["input"]) &&
      isSchemaError(e["verdicts"]["output"]),
  );
}
