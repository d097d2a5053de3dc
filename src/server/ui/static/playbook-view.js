// A private playbook and its history, read-only: the revisions (time, user,
// event, changed fields), and one revision's fields. The answers come from
// the `recipe` tool's history and get-at-revision, for the token's user only.
import { el } from "./render.js";

const FIELDS = [
  ["title", "Title"],
  ["summary", "Summary"],
  ["whenToUse", "When to use"],
];

/** One revision's fields (a `recipe` get answer's context). */
export function renderRevision(context) {
  const parts = [];
  for (const [key, name] of FIELDS) {
    if (typeof context[key] === "string" && context[key] !== "") parts.push(el("h4", { text: name }), el("p", { className: `pb-${key}`, text: context[key] }));
  }
  if (Array.isArray(context.steps) && context.steps.length > 0) {
    parts.push(el("h4", { text: "Steps" }), el("ol", { className: "pb-steps" }, ...context.steps.map((s) => el("li", {}, el("strong", { text: String(s.title ?? "") }), el("div", { text: String(s.detail ?? "") })))));
  }
  if (Array.isArray(context.acceptanceCriteria) && context.acceptanceCriteria.length > 0) {
    parts.push(el("h4", { text: "Acceptance criteria" }), el("ul", {}, ...context.acceptanceCriteria.map((a) => el("li", { text: String(a) }))));
  }
  if (Array.isArray(context.tags) && context.tags.length > 0) parts.push(el("p", {}, ...context.tags.map((t) => el("span", { className: "tag", text: String(t) }))));
  if (typeof context.document === "string" && context.document !== "") parts.push(el("h4", { text: "Document" }), el("pre", {}, el("code", { className: "pb-document", text: context.document })));
  return el("div", { className: "revision-view", "data-revision": String(context.revision ?? "") }, ...parts);
}

/** The history table; `onView(revision)` opens one revision. */
export function renderHistory(context, current, onView) {
  const rows = (context.entries ?? []).map((e) =>
    el(
      "tr",
      { "data-revision": String(e.revision), className: e.revision === current ? "current" : undefined },
      el("td", { text: String(e.revision) }),
      el("td", {}, el("time", { datetime: String(e.at ?? ""), text: String(e.at ?? "") })),
      el("td", { text: e.user === null || e.user === undefined ? "(single user)" : String(e.user) }),
      el("td", { text: `${e.event ?? ""}${e.restoredFrom !== undefined ? ` of ${e.restoredFrom}` : ""}` }),
      el("td", { className: "changed", text: Array.isArray(e.changed) ? e.changed.join(", ") : "" }),
      el("td", {}, viewButton(e.revision, onView)),
    ),
  );
  return el(
    "div",
    { className: "history" },
    el("p", { className: "muted", text: `${context.total ?? rows.length} kept revision(s)${context.deleted ? " (deleted)" : ""}; read-only here (the recipe tool's restore brings one back)` }),
    el("table", { className: "history-table" }, el("thead", {}, el("tr", {}, ...["revision", "time", "user", "event", "changed fields", ""].map((h) => el("th", { text: h })))), el("tbody", {}, ...rows)),
  );
}

function viewButton(revision, onView) {
  const button = el("button", { type: "button", className: "link", "data-view-revision": String(revision), text: "view" });
  button.addEventListener("click", () => onView(revision));
  return button;
}
