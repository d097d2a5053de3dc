/**
 * The one table of tool error codes (docs/tools.md), with what each means. It
 * lives below both the tool layer and the recipe stores so that the stores'
 * outcome codes are a subset of it by type, not a copy.
 */
export const TOOL_ERROR_CODES = {
  not_found: "no recipe, skill or playbook by that name",
  invalid_input: "the arguments break the tool's schema or the recipe's inputs_schema",
  not_ready: "the catalog or search index is still loading, or the playbook store is unreachable",
  conflict: "the playbook changed since the revision the caller read",
  read_only: "public recipes cannot be changed through this tool",
  internal: "an unexpected failure inside the server",
} as const;

export type ToolErrorCode = keyof typeof TOOL_ERROR_CODES;
