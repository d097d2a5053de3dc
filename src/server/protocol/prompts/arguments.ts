/**
 * A YAML recipe's prompt arguments: the top-level `properties` of its
 * inputs_schema, in the order written, required ones marked. Descriptions
 * are kept (a property without one shows its `title`). A listing stays
 * readable however large the schema: at most MAX_LISTED_ARGUMENTS are listed
 * (required ones first) and a description is cut at MAX_DESCRIPTION
 * characters; prompts/get still accepts every property of the schema.
 */
import { isPlainObject as isRecord } from "../../../jsonschema/json.js";

export { isRecord };

export interface PromptArgument {
  readonly name: string;
  readonly description?: string;
  readonly required?: boolean;
}

const MAX_LISTED_ARGUMENTS = 100;
const MAX_DESCRIPTION = 1000;

/** The schema's top-level properties (own keys only), or an empty record. */
export function topLevelProperties(schema: unknown): Record<string, unknown> {
  if (!isRecord(schema) || !Object.hasOwn(schema, "properties")) return {};
  const properties = schema["properties"];
  return isRecord(properties) ? properties : {};
}

export function promptArguments(schema: unknown): PromptArgument[] {
  const properties = topLevelProperties(schema);
  const requiredList = isRecord(schema) && Array.isArray(schema["required"]) ? schema["required"] : [];
  const required = new Set(requiredList.filter((name): name is string => typeof name === "string"));
  const names = Object.keys(properties);
  const ordered = [...names.filter((n) => required.has(n)), ...names.filter((n) => !required.has(n))];
  return ordered.slice(0, MAX_LISTED_ARGUMENTS).map((name) => {
    const description = describe(properties[name]);
    return {
      name,
      ...(description !== undefined ? { description } : {}),
      ...(required.has(name) ? { required: true } : {}),
    };
  });
}

function describe(property: unknown): string | undefined {
  if (!isRecord(property)) return undefined;
  const text = typeof property["description"] === "string" ? property["description"] : property["title"];
  if (typeof text !== "string" || text === "") return undefined;
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}
