/**
 * Embedding recipes in your own MCP server: the TypeScript twin of
 * dcc-mcp-core's
 *
 *     loaded, _ = scan_and_load(dcc_name="maya")
 *     register_recipes_tools(server, skills=loaded, dcc_name="maya")
 *
 * Run: npx tsx examples/embed.ts   (serves over stdio)
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { registerRecipesTools, scanSkills, type RecipesToolsHandle } from "../src/index.js";

const EXAMPLE_SKILLS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../skills-example");

export async function buildEmbeddedServer(
  skillsPath = EXAMPLE_SKILLS,
  stateDir?: string,
): Promise<{ server: McpServer; recipes: RecipesToolsHandle }> {
  const server = new McpServer({ name: "my-maya-bridge", version: "1.0.0" });
  // A tool of the host application, living beside the recipe tools.
  server.registerTool("maya__ping", { description: "Is Maya there?" }, async () => ({
    content: [{ type: "text", text: "pong" }],
  }));
  const { skills } = await scanSkills({ dccName: "maya", extraPaths: [skillsPath], env: { DCC_MCP_DISABLE_DEFAULT_SKILL_PATHS: "1" } });
  const recipes = registerRecipesTools(server, { skills, dccName: "maya", ...(stateDir !== undefined ? { stateDir } : {}) });
  await recipes.ready;
  return { server, recipes };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { server } = await buildEmbeddedServer();
  await server.connect(new StdioServerTransport());
}
