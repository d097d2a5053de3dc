/** Compiles a schema into closures once (work in progress: refuses everything until keywords land). */
import type { CompileOptions, CompileResult } from "./types.js";

export function compileSchema(_schema: unknown, _options?: CompileOptions): CompileResult {
  return { ok: false, error: { code: "malformed", message: "validator not built yet" } };
}
