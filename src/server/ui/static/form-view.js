// Renders a schema-form.js model as DOM (createElement and textContent only:
// a schema's names, descriptions and enum values never become HTML), reads
// the inputs back and shows the server's errors next to the fields.
import { collectInputs, errorsByField, initialValue } from "./schema-form.js";
import { el } from "./render.js";

function label(f) {
  const text = f.name ?? "inputs";
  return el(
    "label",
    { for: `in-${f.id}` },
    el("span", { className: "field-name", text }),
    f.required && f.name !== null ? el("abbr", { className: "required", title: "required", text: "*" }) : null,
    el("span", { className: "muted", text: ` ${f.kind === "enum" ? "one of" : f.kind}${f.nullable ? " or null" : ""}` }),
  );
}

function control(f) {
  const id = `in-${f.id}`;
  const initial = initialValue(f);
  switch (f.kind) {
    case "boolean": {
      if (f.hasDefault || f.required) {
        const box = el("input", { id, type: "checkbox" });
        box.checked = initial === true;
        return box;
      }
      const select = el("select", { id }, el("option", { value: "", text: "(not set)" }), el("option", { value: "true", text: "true" }), el("option", { value: "false", text: "false" }));
      return select;
    }
    case "enum": {
      const select = el(
        "select",
        { id },
        el("option", { value: "", text: f.required ? "(choose)" : "(not set)" }),
        ...f.options.map((o, i) => el("option", { value: String(i), text: o.label })),
      );
      select.value = typeof initial === "string" ? initial : "";
      return select;
    }
    case "number":
    case "integer": {
      const input = el("input", { id, type: "text", inputmode: f.kind === "integer" ? "numeric" : "decimal", autocomplete: "off" });
      input.value = typeof initial === "string" ? initial : "";
      return input;
    }
    case "string": {
      const input = el("input", { id, type: "text", autocomplete: "off", spellcheck: "false" });
      input.value = typeof initial === "string" ? initial : "";
      return input;
    }
    default: {
      const area = el("textarea", { id, rows: f.path.length === 0 ? 8 : 3, spellcheck: "false" });
      area.value = typeof initial === "string" ? initial : "";
      return area;
    }
  }
}

function constraints(f) {
  const parts = [];
  if (f.minimum !== undefined) parts.push(`≥ ${f.minimum}`);
  if (f.maximum !== undefined) parts.push(`≤ ${f.maximum}`);
  if (f.minLength !== undefined) parts.push(`at least ${f.minLength} characters`);
  if (f.maxLength !== undefined) parts.push(`at most ${f.maxLength} characters`);
  if (f.pattern !== undefined) parts.push(`matches ${f.pattern}`);
  if (f.hasDefault) parts.push("default prefilled");
  return parts.join(", ");
}

/**
 * The form for `model`: `{ node, read, showErrors, clear }`. `read()` gives
 * `{inputs, problems}` (collectInputs); `showErrors(errors, problems)` puts
 * the server's error strings and local problems next to their fields and
 * answers the ones no field took.
 */
export function renderForm(model) {
  const controls = new Map();
  const errorNodes = new Map();
  const fieldNode = (f) => {
    if (f.kind === "object") {
      const legend = f.name === null ? null : el("legend", {}, label(f));
      return el(
        "fieldset",
        { className: "field-group", "data-name": f.name ?? undefined, "data-field": f.id },
        legend,
        f.description !== null ? el("p", { className: "help", text: f.description }) : null,
        ...f.children.map(fieldNode),
      );
    }
    const input = control(f);
    controls.set(f.id, input);
    const error = el("p", { className: "field-error error", role: "alert" });
    error.hidden = true;
    errorNodes.set(f.id, error);
    const hint = constraints(f);
    return el(
      "div",
      { className: "field", "data-name": f.name ?? undefined, "data-field": f.id, "data-kind": f.kind },
      label(f),
      input,
      f.description !== null ? el("p", { className: "help", text: f.description }) : null,
      f.note !== null ? el("p", { className: "muted", text: f.note }) : null,
      hint !== "" ? el("p", { className: "muted", text: hint }) : null,
      error,
    );
  };
  const node = el("div", { className: "schema-form" }, fieldNode(model.root));
  const read = () =>
    collectInputs(model, (f) => {
      const input = controls.get(f.id);
      if (input === undefined) return undefined;
      if (input.type === "checkbox") return input.checked;
      if (f.kind === "boolean") return input.value === "" ? null : input.value === "true";
      return input.value;
    });
  const clear = () => {
    for (const [id, error] of errorNodes) {
      error.textContent = "";
      error.hidden = true;
      errorNodes.get(id)?.parentElement?.classList.remove("invalid");
    }
  };
  const showErrors = (errors, problems = []) => {
    clear();
    const { byField, general } = errorsByField(model, errors);
    for (const p of problems) byField.set(p.field, [...(byField.get(p.field) ?? []), p.message]);
    for (const [id, messages] of byField) {
      const error = errorNodes.get(id);
      if (error === undefined) {
        general.push(...messages);
        continue;
      }
      error.textContent = messages.join("; ");
      error.hidden = false;
      error.parentElement?.classList.add("invalid");
    }
    return general;
  };
  return { node, read, showErrors, clear };
}
