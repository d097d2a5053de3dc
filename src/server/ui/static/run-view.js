// A recipes__run answer as the page shows it: the verdict first (a receipt
// that fails the output_contract is a failed run, whatever the tools said),
// then each step's resolved tool, status and time, the receipt, and the
// contract's errors. Text only, through textContent.
import { el } from "./render.js";

const json = (value) => el("pre", {}, el("code", { text: JSON.stringify(value, null, 2) ?? "null" }));

function verdict(envelope) {
  const c = envelope.context ?? {};
  const toolsOk = Array.isArray(c.steps) && c.steps.length > 0 && c.steps.every((s) => s.status === "ok");
  if (c.status === "dry_run") return { className: "verdict dry", title: "Dry run: nothing ran on the DCC", detail: "Every step resolved and passed preflight; these are the calls a run would make." };
  if (envelope.success === true) return { className: "verdict ok", title: "Succeeded", detail: c.output_valid === true ? "The receipt satisfies the output contract." : "The recipe has no output contract to check." };
  if (envelope.error === "contract_failed" || (c.output_valid === false && toolsOk)) {
    return {
      className: "verdict failed",
      title: "Failed: contract not met",
      detail: "Every tool reported success, but the observed receipt does not satisfy the recipe's output_contract.",
    };
  }
  return { className: "verdict failed", title: `Failed: ${envelope.error ?? c.status ?? "error"}`, detail: envelope.message ?? "" };
}

function stepsTable(steps) {
  return el(
    "table",
    { className: "run-steps" },
    el("thead", {}, el("tr", {}, ...["#", "tool", "resolved tool", "status", "ms", "arguments", "error"].map((h) => el("th", { text: h })))),
    el(
      "tbody",
      {},
      ...steps.map((s) =>
        el(
          "tr",
          { className: `step-${s.status}`, "data-step": String(s.index) },
          el("td", { text: String(s.index) }),
          el("td", {}, el("code", { text: s.tool ?? "" })),
          el("td", {}, el("code", { text: s.resolved_tool ?? "" })),
          el("td", { className: "step-status", text: s.status ?? "" }),
          el("td", { text: typeof s.ms === "number" ? String(Math.round(s.ms)) : "" }),
          el("td", {}, el("details", {}, el("summary", { text: "show" }), json(s.arguments ?? null))),
          el("td", { className: "error", text: s.error === undefined ? "" : typeof s.error === "string" ? s.error : JSON.stringify(s.error) }),
        ),
      ),
    ),
  );
}

/** The run report section for a recipes__run envelope. */
export function renderRun(envelope) {
  const c = envelope.context ?? {};
  const v = verdict(envelope);
  const parts = [
    el("div", { className: v.className, role: "status" }, el("strong", { className: "verdict-title", text: v.title }), el("span", { text: ` ${v.detail}` })),
    el("p", { className: "muted", text: `${envelope.message ?? ""}${c.run_id ? ` (run ${c.run_id})` : ""}` }),
  ];
  if (Array.isArray(c.steps) && c.steps.length > 0) parts.push(el("h4", { text: c.status === "dry_run" ? "Plan" : "Steps" }), stepsTable(c.steps));
  if (c.status !== "dry_run" && Object.hasOwn(c, "receipt")) parts.push(el("h4", { text: "Receipt" }), json(c.receipt));
  if (Object.hasOwn(c, "output_valid") && c.status !== "dry_run") {
    const contract = c.output_valid === true ? "output_valid: true" : c.output_valid === false ? "output_valid: false" : "no output contract to check";
    parts.push(el("h4", { text: "Contract" }), el("p", { className: c.output_valid === false ? "contract error" : "contract", text: contract }));
    if (Array.isArray(c.output_errors) && c.output_errors.length > 0) parts.push(el("ul", { className: "output-errors" }, ...c.output_errors.map((e) => el("li", { className: "error", text: String(e) }))));
  }
  const r = c.recovery;
  const recovered = r !== undefined && r !== null && ["steps", "manual", "advice"].some((key) => Array.isArray(r[key]) && r[key].length > 0);
  if (recovered) parts.push(el("h4", { text: "Recovery" }), json(r));
  return el("section", { className: "run-report", "data-status": c.status ?? envelope.error ?? "error" }, ...parts);
}
