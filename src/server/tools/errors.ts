/** The one table of tool error codes (docs/tools.md); defined in src/util/error-codes.ts so the playbook stores share it. */
export { TOOL_ERROR_CODES, type ToolErrorCode } from "../../util/error-codes.js";
