/**
 * The catalog page's HTTP side on a real server: the shell and assets, the
 * read-only JSON API, the guard (token, Host), and its answers to bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY, isPublicUiPath } from "../../../src/server/ui/routes.js";
import { EXAMPLE_SKILLS, startServer, type RunningServer } from "../../e2e/harness.js";

describe("catalog page routes", () => {
  let open: RunningServer;
  let locked: RunningServer;
  beforeAll(async () => {
    open = await startServer({ skillsPaths: [EXAMPLE_SKILLS], dccs: ["maya", "houdini"] });
    locked = await startServer({ skillsPaths: [EXAMPLE_SKILLS], args: ["--token", "s3cret"] });
  });
  afterAll(async () => {
    await open.stop();
    await locked.stop();
  });

  it("serves the shell at / and /ui/<dcc> with a strict CSP and no inline script", async () => {
    for (const route of ["/", "/ui/maya", "/ui/houdini"]) {
      const response = await fetch(`${open.url}${route}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      const html = await response.text();
      expect(html).toMatch(/<script type="module" src="\/ui\/assets\/app\.js"><\/script>/);
      // Every script is a file: no inline code, no inline handlers.
      expect(html.match(/<script\b[^>]*>[^<]+<\/script>/g)).toBeNull();
      expect(html).not.toMatch(/\son[a-z]+=/i);
    }
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect((await fetch(`${open.url}/ui/blender`)).status).toBe(404);
  });

  it("serves the assets, and nothing outside them", async () => {
    const js = await fetch(`${open.url}/ui/assets/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
    for (const bad of ["/ui/assets/..%2Fapp.ts", "/ui/assets/index.html", "/ui/assets/nope.js", "/ui/assets/markdown.d.ts"]) {
      expect((await fetch(`${open.url}${bad}`)).status, bad).toBe(404);
    }
  });

  it("answers the catalog, a recipe view, the revision and a search through the tools", async () => {
    const catalog = (await (await fetch(`${open.url}/ui/api/houdini/catalog`)).json()) as { revision: number; skills: { name: string }[]; recipes: { recipeId: string }[] };
    expect(catalog.skills.map((s) => s.name)).toContain("houdini-fx");
    expect(catalog.recipes.map((r) => r.recipeId)).toContain("houdini-fx/pyro_explosion");
    const recipe = (await (await fetch(`${open.url}/ui/api/houdini/recipe?id=${encodeURIComponent("houdini-fx/pyro_explosion")}`)).json()) as { recipe: { format: string; inputsSchema: { type: string }; yaml: string } };
    expect(recipe.recipe.format).toBe("yaml");
    expect(recipe.recipe.inputsSchema.type).toBe("object");
    expect(recipe.recipe.yaml).toContain("pyro_explosion");
    const revision = (await (await fetch(`${open.url}/ui/api/houdini/revision`)).json()) as { revision: number };
    expect(revision.revision).toBe(catalog.revision);
    const search = (await (await fetch(`${open.url}/ui/api/houdini/search?q=pyro`)).json()) as { success: boolean; context: { recipes: { recipeId: string }[] } };
    expect(search.success).toBe(true);
    expect(search.context.recipes[0]?.recipeId).toBe("houdini-fx/pyro_explosion");
  });

  it.each([
    ["/ui/api/maya/search", 400],
    ["/ui/api/maya/search?q=a&q=b", 400],
    [`/ui/api/maya/search?q=${"x".repeat(2001)}`, 400],
    ["/ui/api/maya/search?q=x&skill=", 400],
    ["/ui/api/maya/search?q=x&skill=nope", 200],
    ["/ui/api/maya/recipe", 400],
    ["/ui/api/maya/recipe?id=nope/nope", 404],
    ["/ui/api/nope/catalog", 404],
    ["/ui/api/nope/search?q=x", 404],
  ])("answers %s with %d and JSON", async (route, status) => {
    const response = await fetch(`${open.url}${route}`);
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toBeTypeOf("object");
  });

  it("answers 200 concurrent mixed requests, hostile queries included, each with JSON", async () => {
    const routes = [
      "/ui/api/houdini/catalog",
      "/ui/api/houdini/search?q=pyro",
      `/ui/api/houdini/search?q=${encodeURIComponent("<script>alert(1)</script>\u0000\u202e")}`,
      `/ui/api/houdini/recipe?id=${encodeURIComponent("../../etc/passwd")}`,
      "/ui/api/houdini/revision",
    ];
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => fetch(`${open.url}${routes[i % routes.length]}`).then(async (r) => [r.status, typeof (await r.json())] as const)));
    const byRoute = new Map<string, Set<string>>();
    answers.forEach(([status, type], i) => {
      const key = routes[i % routes.length]!;
      byRoute.set(key, (byRoute.get(key) ?? new Set()).add(`${status} ${type}`));
    });
    expect([...byRoute.values()].map((set) => [...set])).toEqual([["200 object"], ["200 object"], ["200 object"], ["404 object"], ["200 object"]]);
  });

  it("with --token: the shell loads without it, every API route needs the bearer", async () => {
    expect((await fetch(`${locked.url}/`)).status).toBe(200);
    expect((await fetch(`${locked.url}/ui/assets/app.js`)).status).toBe(200);
    for (const route of ["/ui/api/dccs", "/ui/api/maya/catalog", "/ui/api/maya/search?q=x", "/ui/api/maya/revision", "/ui/api/maya/recipe?id=x"]) {
      expect((await fetch(`${locked.url}${route}`)).status, route).toBe(401);
      expect((await fetch(`${locked.url}${route}`, { headers: { authorization: "Bearer wrong" } })).status, route).toBe(401);
    }
    expect((await fetch(`${locked.url}/ui/api/maya/catalog`, { headers: { authorization: "Bearer s3cret" } })).status).toBe(200);
  });

  it("keeps Host checks on the public pages (DNS rebinding)", async () => {
    const http = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      http.get(`${open.url}/`, { headers: { host: "evil.example" } }, (res) => resolve(res.statusCode ?? 0)).on("error", reject);
    });
    expect(status).toBe(403);
  });

  it("names exactly the shell and assets as public", () => {
    expect(["/", "/ui/maya", "/ui/maya/", "/ui/assets/app.js"].every(isPublicUiPath)).toBe(true);
    expect(["/ui/api/dccs", "/ui/api/maya/catalog", "/mcp", "/metrics", "/readyz", "/ui/assets/../api", "/ui/maya/x"].some(isPublicUiPath)).toBe(false);
  });
});
