/**
 * The lint code table. Loader diagnostics keep their own codes (the one table
 * in src/util/diagnostics.ts) and get a fix line here; the checks only lint
 * makes have their codes here. Codes are stable: CI filters and docs use them.
 */
import type { DiagnosticCode } from "../util/diagnostics.js";
import type { LintSeverity } from "./types.js";

interface LintRule {
  readonly severity: LintSeverity;
  /** What the rule finds. */
  readonly what: string;
  /** Generic fix; findings may carry a more specific one. */
  readonly fix: string;
}

export const LINT_RULES = {
  no_skills_found: {
    severity: "error",
    what: "a PATH holds no SKILL.md, itself or in a direct child directory",
    fix: "point lint at a skill directory or at a root whose child directories hold SKILL.md",
  },
  duplicate_recipe_across_skills: {
    severity: "warning",
    what: "two skills served to the same DCC publish a YAML recipe of the same name",
    fix: "rename one recipe, or make the shared one `dcc: any` so the DCC-specific one reads as its adapter-local override",
  },
  entry_key_typo: {
    severity: "error",
    what: "a recipe entry key is a near miss of a known key (the field is silently ignored)",
    fix: "rename the key to the known one",
  },
  schema_keyword_typo: {
    severity: "error",
    what: "a schema key is a near miss of a Draft 2020-12 keyword (the constraint is silently ignored)",
    fix: "rename the key to the keyword",
  },
  schema_legacy_keyword: {
    severity: "warning",
    what: "a schema uses a keyword from an older draft or OpenAPI that Draft 2020-12 ignores",
    fix: "use the Draft 2020-12 form",
  },
  schema_pattern_refused: {
    severity: "error",
    what: "a pattern or patternProperties key the validator refuses (invalid, or not runnable in linear time: backreferences, lookaround …)",
    fix: "rewrite the pattern without backreferences or lookaround",
  },
  schema_steps_exceeded: {
    severity: "error",
    what: "a $ref / allOf / anyOf / oneOf graph that fans out past the validator's evaluation step budget at one value",
    fix: "refer to a shared definition once instead of in several branches that each refer on",
  },
  schema_draft07_rewrite: {
    severity: "error",
    what: "a schema declaring Draft-07 uses a keyword whose meaning changed in 2020-12 (array items, additionalItems, dependencies); the validator refuses it",
    fix: "rewrite the keyword in its Draft 2020-12 form",
  },
  schema_draft07: {
    severity: "warning",
    what: "a schema declares Draft-07; it is read as Draft 2020-12 (it uses no keyword whose meaning changed)",
    fix: "declare https://json-schema.org/draft/2020-12/schema",
  },
  default_invalid: {
    severity: "error",
    what: "a `default` does not validate against the schema it sits in",
    fix: "change the default so that its own schema accepts it",
  },
  required_not_in_properties: {
    severity: "warning",
    what: "a `required` name has no entry in the same schema's `properties` (an error when additionalProperties is false: nothing can pass)",
    fix: "declare the property under properties, or drop it from required",
  },
  placeholder_undeclared: {
    severity: "error",
    what: "a `${name}` in steps names no property of inputs_schema",
    fix: "declare the input under inputs_schema.properties and list it in required or give it a default",
  },
  placeholder_unresolvable: {
    severity: "error",
    what: "a `${name}` in a step that is neither `optional: true` nor has a fallback names an input that is neither required nor defaulted",
    fix: "list the input in required, give it a default, or mark the step optional: true",
  },
  placeholder_malformed: {
    severity: "warning",
    what: "a `${` in step arguments is not a placeholder the materializer recognises",
    fix: "write placeholders as ${name}, ${a.b} or ${a.list[0]} (letters, digits, _ and -; no spaces)",
  },
  input_unused: {
    severity: "warning",
    what: "an input declared in inputs_schema is referenced by no `${name}` in the recipe (a final `verb: report` step without parameters consumes them all)",
    fix: "pass it to a step as ${name}, or remove it from inputs_schema",
  },
  contract_missing: {
    severity: "warning",
    what: "a YAML recipe has no output_contract: nothing checks what the tools returned",
    fix: "add an output_contract that requires the fields proving the operation happened",
  },
  run_no_route: {
    severity: "warning",
    what: "a step tool that no tool_routing route resolves for a DCC the pack claims (recipes__run refuses the recipe there)",
    fix: "add the DCC's tool to tool_routing.tools, or give the step fallback_arguments for the DCC's scripting_fallback",
  },
  undo_step_unknown_tool: {
    severity: "error",
    what: "an executable undo_steps entry without a tool, or with a tool tool_routing does not know",
    fix: "name a tool tool_routing routes (or write the undo step as a sentence for a person)",
  },
  run_placeholder_unresolvable: {
    severity: "warning",
    what: "a `${name}` in undo_steps or recovery that no input declares (the run report shows it as written)",
    fix: "declare the input in inputs_schema, or reword the step",
  },
  receipt_step_unknown: {
    severity: "error",
    what: "receipt_step names no step of the recipe (recipes__run refuses to run it)",
    fix: "set receipt_step to a 0-based step index or the id of a step",
  },
  contract_legacy_label: {
    severity: "warning",
    what: "output_contract is a string label: documentation only, it validates nothing",
    fix: "replace the label with a Draft 2020-12 schema (type: object, required: [...])",
  },
  contract_cannot_fail: {
    severity: "error",
    what: "output_contract accepts an empty receipt (`{}`, `true`, nothing required or constrained)",
    fix: "require the fields that prove the operation happened, e.g. changed: {const: true} or a count with minimum: 1",
  },
  contract_no_receipt: {
    severity: "warning",
    what: "a recipe that looks mutating requires no receipt flag (`const: true`), no post-operation count (minimum >= 1) and no `*_uuid` of what it made",
    fix: "require a receipt such as changed: {type: boolean, const: true} or a post-operation count with minimum: 1",
  },
  anchor_empty: {
    severity: "warning",
    what: "a Markdown anchor has a heading and no content",
    fix: "write the recipe under the heading or remove the heading",
  },
  anchor_case_collision: {
    severity: "warning",
    what: "two Markdown anchors of one skill differ only in letter case",
    fix: "rename one heading so anchors differ by more than case",
  },
} as const satisfies Record<string, LintRule>;


/** Fix lines for the loader's own diagnostics. */
export const LOADER_FIXES: Readonly<Record<DiagnosticCode, string>> = {
  frontmatter_missing: "start SKILL.md with a --- line, the YAML frontmatter, and a closing --- line",
  frontmatter_invalid: "fix the frontmatter YAML; it must be a mapping and name a string",
  non_spec_top_level_keys: "move the keys under metadata.dcc-mcp",
  invalid_metadata: "give the metadata.dcc-mcp value the documented type (recipes: a file name, a glob, or a list of them)",
  duplicate_skill: "rename one skill (frontmatter name) or remove the copy; the first root in priority order wins",
  reserved_skill_name: "rename the skill: `private` is reserved for private playbooks",
  invalid_skill_name: "rename the skill: lowercase letters, digits and hyphens, as the Agent Skills format asks",
  recipe_path_escapes: "keep recipe files inside the skill directory and name them relative to it, without ..",
  recipe_path_missing: "create the file or correct metadata.dcc-mcp.recipes",
  recipe_glob_empty: "add a file the glob matches or correct metadata.dcc-mcp.recipes",
  recipe_path_loop: "remove the symbolic link that points back into its own directory tree, or narrow the glob",
  file_unreadable: "make the file readable",
  file_too_large: "split the file; the limit is 1 MiB",
  not_utf8: "save the file as UTF-8",
  yaml_parse_error: "fix the YAML syntax at the line shown (quote \"${x}\" placeholders and strings with : or #)",
  yaml_duplicate_key: "remove or rename the repeated key",
  yaml_alias_limit: "write the values out instead of expanding YAML aliases",
  pack_missing_recipes: "put the entries under a top-level `recipes:` list",
  recipe_invalid_entry: "each entry needs a non-empty string name; steps must be a list; toolset_profiles a string or a list of strings",
  duplicate_recipe: "rename one of the recipes; the first in path order wins",
  duplicate_anchor: "rename one of the headings; the first in path order wins",
  schema_fails_closed: "remove what the validator refuses (the reason names it)",
  schema_draft07_accepted: "declare https://json-schema.org/draft/2020-12/schema",
  private_playbook_invalid: "fix the playbook's frontmatter",
  reload_kept_last_good: "fix the file; its last good recipes are served meanwhile",
};

export function ruleOf(code: string): LintRule | undefined {
  return (LINT_RULES as Record<string, LintRule>)[code];
}

export function fixFor(code: string): string {
  return ruleOf(code)?.fix ?? (LOADER_FIXES as Record<string, string>)[code] ?? "";
}
