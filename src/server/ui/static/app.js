// The catalog page. Read-only: it only GETs /ui/api/*. Every recipe string
// reaches the page through textContent (render.js), never as HTML.
import { parseMarkdown } from "./markdown.js";
import { el, renderBlocks } from "./render.js";

const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);

const state = {
  /** Held in this tab's memory only: never in a URL, a cookie or storage. */
  token: null,
  dccs: [],
  dcc: null,
  catalog: null,
  selected: null,
  query: "",
};

class AuthNeeded extends Error {}

async function api(path) {
  const headers = { accept: "application/json" };
  if (state.token !== null) headers.authorization = `Bearer ${state.token}`;
  const response = await fetch(path, { headers, cache: "no-store", credentials: "omit" });
  if (response.status === 401) throw new AuthNeeded();
  return { status: response.status, body: await response.json() };
}

const dccApi = (rest) => `/ui/api/${encodeURIComponent(state.dcc)}/${rest}`;

function replace(node, ...children) {
  node.replaceChildren(...children);
}

function renderDccs() {
  replace(
    $("dccs"),
    ...state.dccs.map((d) => el("a", { href: `/ui/${encodeURIComponent(d.dcc)}`, "aria-current": d.dcc === state.dcc ? "page" : undefined, text: d.dcc })),
  );
}

function recipeButton(recipe) {
  const button = el("button", { type: "button", className: "link", "data-recipe": recipe.recipeId, text: recipe.recipeId });
  button.addEventListener("click", () => openRecipe(recipe.recipeId));
  return button;
}

function renderCatalog() {
  const c = state.catalog;
  $("revision").textContent = `revision ${c.revision}`;
  $("skill-count").textContent = `(${c.skills.length})`;
  $("recipe-count").textContent = `(${c.recipes.length})`;
  replace(
    $("skills"),
    ...c.skills.map((s) =>
      el("li", {}, el("strong", { text: s.name }), el("span", { className: "tag", text: s.dcc }), el("span", { className: "muted", text: ` ${s.recipes} recipes` }), el("div", { className: "muted", text: s.description })),
    ),
  );
  replace($("recipes"), ...c.recipes.map((r) => el("li", {}, recipeButton(r), el("span", { className: "tag", text: r.format }), el("div", { className: "muted", text: r.description }))));
  for (const id of ["search-skill", "diag-skill"]) {
    const select = $(id);
    const kept = select.value;
    replace(select, el("option", { value: "", text: "all skills" }), ...c.skills.map((s) => el("option", { value: s.name, text: s.name })));
    select.value = c.skills.some((s) => s.name === kept) ? kept : "";
  }
  renderDiagnostics();
}

function renderDiagnostics() {
  const severity = $("severity").value;
  const skill = $("diag-skill").value;
  const shown = state.catalog.diagnostics.filter((d) => (severity === "" || d.severity === severity) && (skill === "" || d.skill === skill));
  $("diag-count").textContent = `(${shown.length} of ${state.catalog.diagnostics.length})`;
  replace(
    $("diagnostics").tBodies[0],
    ...shown.map((d) =>
      el(
        "tr",
        { className: d.severity },
        el("td", { text: d.severity }),
        el("td", {}, el("code", { text: d.code })),
        el("td", { text: d.skill ?? "" }),
        el("td", { text: d.file === undefined ? "" : `${d.file}${d.line !== undefined ? `:${d.line}` : ""}` }),
        el("td", { text: d.message }),
      ),
    ),
  );
}

function json(value) {
  return el("pre", {}, el("code", { text: JSON.stringify(value, null, 2) }));
}

async function openRecipe(id) {
  state.selected = id;
  const { status, body } = await api(`${dccApi("recipe")}?id=${encodeURIComponent(id)}`);
  const view = $("recipe");
  if (status !== 200) {
    replace(view, el("p", { className: "muted", text: `${id}: ${body.message}` }));
    return;
  }
  const r = body.recipe;
  const head = [el("h2", { text: r.recipeId }), el("p", { className: "muted", text: `${r.format} recipe from ${r.skill}/${r.file}` })];
  if (r.format === "markdown") {
    replace(view, ...head, el("div", { className: "markdown" }, renderBlocks(parseMarkdown(r.markdown))));
  } else {
    replace(
      view,
      ...head,
      el("p", { text: r.description }),
      el("h3", { text: "Inputs schema" }),
      json(r.inputsSchema),
      el("h3", { text: "Output contract" }),
      r.outputContract === null ? el("p", { className: "muted", text: "none" }) : json(r.outputContract),
      el("h3", { text: "YAML" }),
      el("pre", {}, el("code", { text: r.yaml })),
    );
  }
}

async function runSearch() {
  const q = $("search").value;
  state.query = q;
  const section = $("results-section");
  if (q.trim() === "") {
    section.hidden = true;
    return;
  }
  const skill = $("search-skill").value;
  const { status, body } = await api(`${dccApi("search")}?q=${encodeURIComponent(q)}${skill ? `&skill=${encodeURIComponent(skill)}` : ""}`);
  if (q !== $("search").value) return; // a newer query is on its way
  section.hidden = false;
  if (status !== 200) {
    $("results-mode").textContent = "";
    replace($("results"), el("li", { className: "error", text: body.message }));
    return;
  }
  const hits = body.context.recipes;
  $("results-mode").textContent = `(${hits.length}, ${body.context.mode})`;
  replace($("results"), ...(hits.length === 0 ? [el("li", { className: "muted", text: "nothing found" })] : hits.map((h) => el("li", {}, recipeButton(h), el("div", { className: "muted", text: h.description })))));
}

async function loadCatalog() {
  const { status, body } = await api(dccApi("catalog"));
  if (status !== 200) {
    $("live").textContent = body.message;
    return false;
  }
  state.catalog = body;
  renderCatalog();
  return true;
}

async function poll() {
  try {
    const { body } = await api(dccApi("revision"));
    if (state.catalog === null || body.revision !== state.catalog.revision) {
      const before = state.catalog?.revision;
      if (await loadCatalog()) {
        if (before !== undefined) {
          $("live").textContent = `updated to revision ${state.catalog.revision} at ${new Date().toLocaleTimeString()}`;
          $("revision").classList.add("flash");
          setTimeout(() => $("revision").classList.remove("flash"), 2000);
        }
        if (state.query.trim() !== "") await runSearch();
        if (state.selected !== null) await openRecipe(state.selected);
      }
    }
  } catch (error) {
    if (error instanceof AuthNeeded) return showAuth("The token was refused.");
    $("live").textContent = "server unreachable; retrying";
  }
  setTimeout(poll, POLL_MS);
}

function showAuth(message) {
  $("app").hidden = true;
  $("auth").hidden = false;
  $("auth-error").textContent = message ?? "";
  $("token").focus();
}

async function boot() {
  try {
    const { body } = await api("/ui/api/dccs");
    state.dccs = body.dccs;
  } catch (error) {
    if (error instanceof AuthNeeded) return showAuth(state.token === null ? "" : "That token was refused.");
    throw error;
  }
  const fromPath = /^\/ui\/([^/]+)\/?$/.exec(location.pathname);
  const wanted = fromPath ? decodeURIComponent(fromPath[1]) : null;
  state.dcc = state.dccs.some((d) => d.dcc === wanted) ? wanted : (state.dccs[0]?.dcc ?? null);
  $("auth").hidden = true;
  $("app").hidden = false;
  renderDccs();
  if (state.dcc !== null) poll();
}

let searchTimer = null;
document.addEventListener("DOMContentLoaded", () => {
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    state.token = $("token").value;
    $("token").value = "";
    boot();
  });
  $("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    runSearch();
  });
  $("search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(runSearch, 200);
  });
  $("search-skill").addEventListener("change", runSearch);
  $("severity").addEventListener("change", renderDiagnostics);
  $("diag-skill").addEventListener("change", renderDiagnostics);
  boot();
});
