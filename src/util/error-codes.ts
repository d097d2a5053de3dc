/**
 * The one table of tool error codes (docs/tools.md), with what each means. It
 * lives below both the tool layer and the recipe stores so that the stores'
 * outcome codes are a subset of it by type, not a copy.
 */
const TOOL_ERROR_CODES = {
  not_found: "no recipe, skill or playbook by that name",
  invalid_input: "the arguments break the tool's schema or the recipe's inputs_schema",
  not_ready: "the catalog or search index is still loading, or the playbook store is unreachable",
  conflict: "the playbook changed since the revision the caller read",
  read_only: "public recipes cannot be changed through this tool",
  internal: "an unexpected failure inside the server",
  busy: "the DCC is already running a recipe and its queue is full; nothing reached the DCC",
  dcc_unavailable: "the DCC's MCP endpoint did not answer (not running, restarting, or hung) within the connect bound",
  preflight_failed: "a resolved step tool is missing from the DCC, or its arguments break the tool's inputSchema; nothing ran",
  run_failed: "a step failed on the DCC (tool error, isError, timeout); recovery ran where the recipe declares it",
  contract_failed: "every step ran but the observed receipt fails the recipe's output_contract",
  cancelled: "the caller cancelled the run; it stopped between steps and recovery ran",
} as const;

export type ToolErrorCode = keyof typeof TOOL_ERROR_CODES;
