// The catalog page. It reads the catalog, and (as the server allows this
// caller: GET /ui/api/<dcc>/me) validates a YAML recipe's inputs, dry-runs and
// runs it on the DCC, and shows the caller's private playbooks with their
// history. Every recipe string reaches the page through textContent
// (render.js), never as HTML.
import { parseMarkdown } from "./markdown.js";
import { el, renderBlocks } from "./render.js";
import { buildForm } from "./schema-form.js";
import { renderForm } from "./form-view.js";
import { renderRun } from "./run-view.js";
import { renderHistory, renderRevision } from "./playbook-view.js";

const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);

const state = {
  /** Held in this tab's memory only: never in a URL, a cookie or storage. */
  token: null,
  dccs: [],
  dcc: null,
  catalog: null,
  selected: null,
  /** The open recipe's view as JSON: a reload that leaves it unchanged keeps the form and its results. */
  shown: null,
  query: "",
  /** What this caller may do on this DCC (GET me). */
  me: null,
};

class AuthNeeded extends Error {}

async function api(path, post) {
  const headers = { accept: "application/json" };
  if (state.token !== null) headers.authorization = `Bearer ${state.token}`;
  const init = { headers, cache: "no-store", credentials: "omit" };
  if (post !== undefined) {
    headers["content-type"] = "application/json";
    Object.assign(init, { method: "POST", body: JSON.stringify(post) });
  }
  const response = await fetch(path, init);
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

async function openRecipe(id, refresh = false) {
  if (!refresh) state.shown = null;
  state.selected = id;
  const { status, body } = await api(`${dccApi("recipe")}?id=${encodeURIComponent(id)}`);
  const view = $("recipe");
  if (status !== 200) {
    state.shown = null;
    replace(view, el("p", { className: "muted", text: `${id}: ${body.message}` }));
    return;
  }
  const r = body.recipe;
  const shown = JSON.stringify(r);
  if (refresh && shown === state.shown) return;
  state.shown = shown;
  const head = [el("h2", { text: r.recipeId }), el("p", { className: "muted", text: `${r.format} recipe from ${r.skill}/${r.file}` })];
  if (r.format === "markdown") {
    replace(view, ...head, el("div", { className: "markdown" }, renderBlocks(parseMarkdown(r.markdown))));
  } else {
    replace(
      view,
      ...head,
      el("p", { text: r.description }),
      el("h3", { text: "Inputs" }),
      inputsPanel(r),
      el("h3", { text: "Inputs schema" }),
      el("details", { className: "raw-schema" }, el("summary", { text: "raw JSON" }), json(r.inputsSchema)),
      el("h3", { text: "Output contract" }),
      r.outputContract === null ? el("p", { className: "muted", text: "none" }) : json(r.outputContract),
      el("h3", { text: "YAML" }),
      el("pre", {}, el("code", { text: r.yaml })),
    );
  }
}

/** The inputs form of a YAML recipe, with Validate (the server's validator) and, where this caller may run, Dry run and Run. */
function inputsPanel(r) {
  const model = buildForm(r.inputsSchema);
  const form = renderForm(model);
  const status = el("div", { id: "form-status", role: "status", "aria-live": "polite" });
  const result = el("div", { id: "run-result" });
  const run = state.me?.run ?? { available: false, reason: "" };
  const validate = el("button", { type: "button", id: "validate", text: "Validate" });
  const buttons = [validate];
  let confirm = null;
  const busy = (on) => {
    for (const b of buttons) b.disabled = on;
    if (!on && confirm !== null) $("run").disabled = !confirm.checked;
  };
  const inputsOrProblems = () => {
    const read = form.read();
    if (read.problems.length > 0) {
      const general = form.showErrors([], read.problems);
      replace(status, el("p", { className: "error", text: "Fix the marked fields (nothing was sent)." }), ...general.map((g) => el("p", { className: "error", text: g })));
      return null;
    }
    return read.inputs;
  };
  const showInvalid = (errors, message) => {
    const general = form.showErrors(errors);
    replace(status, el("p", { className: "error invalid-inputs", text: message }), ...general.map((g) => el("p", { className: "error general-error", text: g })));
  };
  validate.addEventListener("click", async () => {
    const inputs = inputsOrProblems();
    if (inputs === null) return;
    busy(true);
    try {
      const { status: code, body } = await api(dccApi("validate"), { recipeId: r.recipeId, inputs });
      if (code !== 200 || body.success !== true) {
        form.clear();
        replace(status, el("p", { className: "error", text: body.message ?? "validation failed" }), ...(body.context?.errors ?? []).map((e) => el("p", { className: "error general-error", text: String(e) })));
      } else if (body.context.valid) {
        form.clear();
        replace(status, el("p", { className: "ok", text: "Inputs are valid." }));
      } else {
        showInvalid(body.context.errors, `Inputs are invalid (${body.context.errors.length} error(s)): see the marked fields.`);
      }
    } finally {
      busy(false);
    }
  });
  const runNode = [];
  if (run.available) {
    const dry = el("button", { type: "button", id: "dry-run", text: "Dry run" });
    const go = el("button", { type: "button", id: "run", className: "primary", text: "Run" });
    buttons.push(dry, go);
    if (r.undo === "none") {
      confirm = el("input", { type: "checkbox", id: "confirm-undo-none" });
      go.disabled = true;
      confirm.addEventListener("change", () => {
        go.disabled = !confirm.checked;
      });
      runNode.push(el("label", { className: "confirm" }, confirm, el("span", { text: " This recipe declares undo: none: its changes cannot be rolled back. Run it anyway." })));
    }
    const start = async (dryRun) => {
      const inputs = inputsOrProblems();
      if (inputs === null) return;
      busy(true);
      replace(status, el("p", { className: "muted", text: dryRun ? "Resolving and preflighting…" : "Running on the DCC…" }));
      replace(result);
      try {
        const { status: code, body } = await api(dccApi("run"), { recipeId: r.recipeId, inputs, dryRun, confirm: confirm?.checked === true });
        if (code !== 200) {
          replace(status, el("p", { className: "error", text: body.message ?? `HTTP ${code}` }));
          return;
        }
        if (body.error === "invalid_input" && Array.isArray(body.context?.errors)) {
          showInvalid(body.context.errors, "Invalid inputs: nothing ran. See the marked fields.");
          return;
        }
        form.clear();
        replace(status);
        replace(result, renderRun(body));
      } catch (error) {
        if (error instanceof AuthNeeded) return showAuth("The token was refused.");
        replace(status, el("p", { className: "error", text: "The server did not answer the run." }));
      } finally {
        busy(false);
      }
    };
    dry.addEventListener("click", () => start(true));
    go.addEventListener("click", () => start(false));
  } else {
    runNode.push(el("p", { id: "run-unavailable", className: "muted", text: `No run buttons: ${run.reason ?? "running is not available here."}` }));
  }
  return el(
    "div",
    { className: "inputs-panel" },
    model.fallback !== null ? el("p", { className: "muted", text: `Form: ${model.fallback}` }) : null,
    form.node,
    ...runNode,
    el("div", { className: "actions" }, ...buttons),
    status,
    result,
  );
}

async function loadMe() {
  const { status, body } = await api(dccApi("me"));
  state.me = status === 200 ? body : null;
  const who = state.me === null ? "" : state.me.user !== null ? `user ${state.me.user}` : state.me.auth === "none" ? "" : "operator";
  $("who").textContent = who;
  $("who").hidden = who === "";
}

async function loadPlaybooks() {
  const section = $("playbooks-section");
  const pb = state.me?.playbooks;
  if (pb === undefined) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  if (!pb.available) {
    $("playbook-count").textContent = "";
    replace($("playbooks"));
    $("playbooks-note").textContent = pb.reason ?? "";
    return;
  }
  const { status, body } = await api(dccApi("playbooks"));
  if (status !== 200) {
    $("playbooks-note").textContent = body.message ?? "";
    return;
  }
  $("playbooks-note").textContent = body.playbooks.length === 0 ? "none yet (agents create them with the recipe tool)" : "";
  $("playbook-count").textContent = `(${body.playbooks.length})`;
  replace(
    $("playbooks"),
    ...body.playbooks.map((p) => {
      const button = el("button", { type: "button", className: "link", "data-playbook": p.recipeId, text: p.recipeId });
      button.addEventListener("click", () => openPlaybook(p.recipeId, p.revision));
      return el("li", {}, button, el("span", { className: "tag", text: `rev ${p.revision}` }), el("div", { className: "muted", text: p.title }));
    }),
  );
}

async function openPlaybook(id, revision) {
  state.selected = null;
  state.shown = null;
  const view = $("recipe");
  const [current, history] = await Promise.all([
    api(`${dccApi("playbook/revision")}?id=${encodeURIComponent(id)}&revision=${revision}`),
    api(`${dccApi("playbook/history")}?id=${encodeURIComponent(id)}`),
  ]);
  if (current.status !== 200 || current.body.success !== true) {
    replace(view, el("p", { className: "muted", text: `${id}: ${current.body.message}` }));
    return;
  }
  const shown = el("div", { id: "revision-shown" });
  const show = async (rev) => {
    const answer = rev === revision ? current : await api(`${dccApi("playbook/revision")}?id=${encodeURIComponent(id)}&revision=${rev}`);
    if (answer.status !== 200 || answer.body.success !== true) {
      replace(shown, el("p", { className: "error", text: answer.body.message }));
      return;
    }
    replace(shown, el("h3", { id: "revision-heading", text: rev === revision ? `Current revision (${rev})` : `Revision ${rev} (read-only; current is ${revision})` }), renderRevision(answer.body.context));
  };
  await show(revision);
  const historyNode =
    history.status === 200 && history.body.success === true
      ? renderHistory(history.body.context, revision, show)
      : el("p", { className: "error", text: history.body.message ?? "no history" });
  replace(view, el("h2", { text: id }), el("p", { className: "muted", text: `private playbook, revision ${revision}` }), shown, el("h3", { text: "History" }), historyNode);
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
        if (state.selected !== null) await openRecipe(state.selected, true);
        await loadPlaybooks();
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
  if (state.dcc !== null) {
    await loadMe();
    poll();
  }
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
