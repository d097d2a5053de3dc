/**
 * The observed receipt and its verdict. A step's result is projected onto a
 * JSON value: its `structuredContent`, else its first text content when that
 * parses as a JSON object. A dcc-mcp-core result envelope
 * (`{success, message, context}`) is unwrapped to its `context`, and its
 * `success: false` fails the step even when the call was not `isError`.
 * The receipt (the last step's value unless the recipe's `receipt_step`
 * names another) is validated against `output_contract`: a contract that
 * fails is a failed run even though every tool said success.
 *
 * Answers are bounded: a value whose JSON exceeds `maxChars` is replaced by
 * `{truncated: true, chars, preview}` in the answer (the contract is checked
 * on the whole value first).
 */
import { renderErrors } from "../../jsonschema/index.js";
import type { CompileResult } from "../../jsonschema/types.js";
import { isPlainObject as isRecord } from "../../jsonschema/json.js";
import type { DccToolResult } from "./types.js";

interface Projected {
  readonly value: unknown;
  /** The DCC said the step failed (isError, or a core envelope's success: false), with its message. */
  readonly failed: string | null;
}

function textOf(content: readonly unknown[]): string | null {
  for (const item of content) {
    if (isRecord(item) && item["type"] === "text" && typeof item["text"] === "string") return item["text"];
  }
  return null;
}

function parseObject(text: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function isCoreEnvelope(value: Record<string, unknown>): boolean {
  return typeof value["success"] === "boolean" && isRecord(value["context"]);
}

export function projectResult(result: DccToolResult): Projected {
  const text = textOf(result.content);
  let value: unknown = result.structuredContent ?? (text !== null ? (parseObject(text) ?? text) : null);
  let failed: string | null = result.isError ? (text ?? "the tool answered isError") : null;
  if (isRecord(value) && isCoreEnvelope(value)) {
    if (value["success"] === false && failed === null) failed = typeof value["message"] === "string" ? value["message"] : "the tool answered success: false";
    value = value["context"];
  }
  return { value, failed };
}

interface Verdict {
  readonly valid: boolean | null;
  readonly errors: string[];
}

/** The receipt against the recipe's compiled contract; null validity when the recipe declares no schema contract. */
export function checkContract(contract: CompileResult | null, receipt: unknown): Verdict {
  if (contract === null) return { valid: null, errors: [] };
  if (!contract.ok) return { valid: false, errors: ["$: the recipe's output_contract is not a usable schema"] };
  if (receipt === undefined || receipt === null) return { valid: false, errors: ["$: no receipt was observed (the receipt step did not run or returned nothing)"] };
  const result = contract.validator.validate(receipt);
  return { valid: result.valid, errors: result.valid ? [] : renderErrors(result.errors, "output field") };
}

/** `value` as an answer may carry it: whole, or cut past `maxChars` of JSON. */
export function bounded(value: unknown, maxChars: number): unknown {
  if (value === undefined) return null;
  let text: string;
  try {
    text = JSON.stringify(value) ?? "null";
  } catch {
    return { truncated: true, chars: 0, preview: "(not JSON-serializable)" };
  }
  if (text.length <= maxChars) return value;
  return { truncated: true, chars: text.length, preview: text.slice(0, maxChars) };
}
