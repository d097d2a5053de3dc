/**
 * The text of a prompt. A Markdown recipe's prompt is its content. A YAML
 * recipe's prompt tells the agent to run it with recipes__run where the
 * endpoint can run recipes (a DCC with a `--dcc-endpoint`), else to apply it:
 * the call with the validated inputs, what the recipe does, its steps verbatim, its output
 * contract and the pack's tool routing, so the agent can run it without a
 * recipes__get first.
 */
import type { MarkdownRecipe, YamlRecipe } from "../../../recipes/types.js";

export interface PromptMessage {
  readonly role: "user";
  readonly content: { readonly type: "text"; readonly text: string };
}

export function markdownMessages(recipe: MarkdownRecipe): PromptMessage[] {
  return [userText(recipe.content)];
}

export function yamlMessages(recipe: YamlRecipe, inputs: Readonly<Record<string, unknown>>, canRun = false): PromptMessage[] {
  const call = { skill: recipe.skill, recipe: recipe.name, inputs };
  const parts = canRun
    ? [
        `Run the recipe "${recipe.recipeId}" on the DCC with the recipes__run tool: it resolves each step's tool, checks them (preflight), runs the steps in order and checks the receipt against the output contract. Report its status, receipt and output_errors.`,
        `Call recipes__run with these arguments (add "dryRun": true to see the resolved plan first):\n${fenced(JSON.stringify(call, null, 2), "json")}`,
      ]
    : [
        `Apply the recipe "${recipe.recipeId}" with the recipes__apply tool, then carry out the steps it returns, in order.`,
        `Call recipes__apply with these arguments (add "materialize": true to also get the steps with every \${placeholder} resolved):\n${fenced(JSON.stringify(call, null, 2), "json")}`,
      ];
  if (recipe.description !== "") parts.push(`What it does: ${recipe.description}`);
  parts.push(
    `Steps, verbatim (a \${name} placeholder takes inputs.name, or the inputs_schema default when the input is absent):\n${fenced(JSON.stringify(recipe.steps, null, 2), "json")}`,
  );
  parts.push(contractText(recipe.outputContract));
  const routing = recipe.pack["tool_routing"];
  if (routing !== undefined) {
    parts.push(`Tool routing of the pack (canonical tool names for the steps):\n${fenced(JSON.stringify(routing, null, 2), "json")}`);
  }
  return [userText(parts.join("\n\n"))];
}

function contractText(contract: unknown): string {
  if (contract === undefined || contract === null) return "The recipe declares no output contract: report what the steps produced.";
  if (typeof contract === "string") return `Output contract (a label, not a schema): ${contract}`;
  return `Output contract: check the observed result against this JSON Schema before reporting success:\n${fenced(JSON.stringify(contract, null, 2), "json")}`;
}

function userText(text: string): PromptMessage {
  return { role: "user", content: { type: "text", text } };
}

/** A fence longer than any backtick run inside, so recipe text cannot close it. */
function fenced(text: string, language: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}
