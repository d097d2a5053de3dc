// A YAML recipe's inputs_schema as a form model: plain data, no DOM (form-view.js
// renders it, with textContent only). Schemas are recipe files and may be
// malformed or hostile: every size is bounded, `$ref` is followed only inside
// the schema and a few hops deep, property names are kept as data (never
// assigned as object keys with `=`, so `__proto__` is just a name), and
// anything the form cannot show as simple fields falls back to a JSON textarea.

/** Deeper objects than this are one JSON field. */
export const MAX_DEPTH = 4;
/** More fields than this and the whole form is one JSON textarea. */
export const MAX_FIELDS = 200;
/** Enums longer than this are typed as JSON (a select of thousands helps nobody). */
export const MAX_ENUM = 200;
/** Labels, descriptions and option labels are cut to this many characters. */
export const MAX_TEXT = 2000;
const MAX_REF_HOPS = 8;
const SIMPLE = new Set(["string", "number", "integer", "boolean"]);

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const own = (object, key) => (isObject(object) && Object.hasOwn(object, key) ? object[key] : undefined);

function clip(text, max = MAX_TEXT) {
  const s = String(text);
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** A JSON value as one short line (option labels, placeholders); never throws. */
export function shortJson(value, max = 200) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch {
    text = String(value);
  }
  return clip(text === undefined ? String(value) : text, max);
}

function prettyJson(value) {
  try {
    return JSON.stringify(value, null, 2) ?? "";
  } catch {
    return "";
  }
}

/** `#/a/b` inside `root`, or undefined (remote refs, bad pointers). */
function pointer(root, ref) {
  if (typeof ref !== "string" || !(ref === "#" || ref.startsWith("#/"))) return undefined;
  let node = root;
  for (const raw of ref === "#" ? [] : ref.slice(2).split("/")) {
    let key;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
    else node = own(node, key);
    if (node === undefined) return undefined;
  }
  return node;
}

/** The schema a `$ref` chain ends at (the referring schema's own description kept), or null when it cannot be followed. */
function resolve(root, schema) {
  let current = schema;
  let description = own(schema, "description");
  for (let hops = 0; isObject(current) && own(current, "$ref") !== undefined; hops++) {
    if (hops >= MAX_REF_HOPS) return null;
    const next = pointer(root, current.$ref);
    if (next === undefined || next === current) return null;
    current = next;
    if (description === undefined) description = own(current, "description");
  }
  if (!isObject(current)) return current === true || current === undefined ? {} : null;
  return description === undefined || own(current, "description") === description ? current : { ...current, description };
}

/** The one non-null type a schema names, and whether null is allowed too. */
function typeOf(schema) {
  const type = own(schema, "type");
  if (typeof type === "string") return { type, nullable: false };
  if (Array.isArray(type)) {
    const named = type.filter((t) => typeof t === "string" && t !== "null");
    if (named.length === 1) return { type: named[0], nullable: type.includes("null") };
    return { type: null, nullable: type.includes("null") };
  }
  if (own(schema, "properties") !== undefined) return { type: "object", nullable: false };
  return { type: null, nullable: false };
}

function requiredNames(schema) {
  const required = own(schema, "required");
  return Array.isArray(required) ? new Set(required.filter((name) => typeof name === "string")) : new Set();
}

/**
 * The form model of `schema`: `{ root, fields, fallback }` where `root` is
 * the top field (kind "object" with `children`, or one "json" field for the
 * whole inputs), `fields` every field by id, `fallback` why the whole form
 * is JSON (null when it is not).
 */
export function buildForm(schema) {
  const fields = new Map();
  let count = 0;
  let overflow = false;
  const rootSchema = schema;

  const field = (name, path, raw, required, depth) => {
    count += 1;
    if (count > MAX_FIELDS) overflow = true;
    const id = `f${count}`;
    const base = { id, name: name === null ? null : clip(name, 200), path, required, description: null, hasDefault: false, default: undefined, nullable: false, note: null };
    const s = resolve(rootSchema, raw);
    if (s === null) return register({ ...base, kind: "json", note: "a $ref this form cannot follow: type the value as JSON" });
    const description = own(s, "description");
    base.description = typeof description === "string" ? clip(description) : null;
    if (Object.hasOwn(s, "default")) {
      base.hasDefault = true;
      base.default = s.default;
    }
    const choices = Array.isArray(own(s, "enum")) ? s.enum : Object.hasOwn(s, "const") ? [s.const] : null;
    if (choices !== null) {
      if (choices.length === 0 || choices.length > MAX_ENUM) return register({ ...base, kind: "json", note: `${choices.length} allowed values: type one as JSON` });
      const options = choices.map((value) => ({ value, label: typeof value === "string" ? clip(value, 200) : shortJson(value) }));
      return register({ ...base, kind: "enum", options });
    }
    const { type, nullable } = typeOf(s);
    base.nullable = nullable;
    const composite = ["anyOf", "oneOf", "allOf", "not", "if"].some((key) => own(s, key) !== undefined);
    if (type !== null && SIMPLE.has(type) && !composite) {
      const extra = {};
      for (const key of ["minimum", "maximum", "minLength", "maxLength", "pattern"]) {
        const value = own(s, key);
        if ((typeof value === "number" && Number.isFinite(value)) || (key === "pattern" && typeof value === "string")) extra[key] = key === "pattern" ? clip(value, 500) : value;
      }
      return register({ ...base, kind: type, ...extra });
    }
    const properties = own(s, "properties");
    if (type === "object" && isObject(properties) && !composite && depth < MAX_DEPTH) {
      const needed = requiredNames(s);
      const children = [];
      for (const key of Object.keys(properties)) {
        if (overflow) break;
        children.push(field(key, [...path, key], properties[key], needed.has(key), depth + 1));
      }
      return register({ ...base, kind: "object", children });
    }
    const why = composite ? "a choice of shapes" : type === "array" ? "a list" : type === "object" ? "an object" : "any JSON value";
    return register({ ...base, kind: "json", note: `${why}: type the value as JSON` });
  };
  const register = (f) => {
    fields.set(f.id, f);
    return f;
  };

  const resolved = resolve(rootSchema, schema);
  let root;
  if (resolved !== null && typeOf(resolved).type === "object" && isObject(own(resolved, "properties"))) root = field(null, [], schema, true, 0);
  else root = field(null, [], schema, true, MAX_DEPTH);
  if (overflow) {
    fields.clear();
    const whole = { id: "f0", name: null, path: [], required: true, description: null, hasDefault: false, default: undefined, nullable: false, kind: "json", note: `more than ${MAX_FIELDS} fields: type the inputs as JSON` };
    fields.set(whole.id, whole);
    return { root: whole, fields, fallback: whole.note };
  }
  return { root, fields, fallback: root.kind === "json" ? root.note : null };
}

/** What a field's input shows first: its default, as the input holds it. */
export function initialValue(f) {
  if (f.kind === "boolean") return f.hasDefault ? f.default === true : f.required ? false : null;
  if (!f.hasDefault) return f.kind === "json" && f.path.length === 0 ? "{}" : "";
  if (f.kind === "enum") {
    const at = f.options.findIndex((o) => JSON.stringify(o.value) === JSON.stringify(f.default));
    return at < 0 ? "" : String(at);
  }
  if (f.kind === "json") return prettyJson(f.default);
  if (f.kind === "string") return typeof f.default === "string" ? f.default : shortJson(f.default);
  if (f.kind === "number" || f.kind === "integer") return typeof f.default === "number" ? String(f.default) : "";
  return "";
}

/** Sets `key` on `target` as an own data property (a key "__proto__" stays a key). */
function put(target, key, value) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The inputs object from the raw values `read(field)` gives (strings, or a
 * boolean / null for a boolean field), and the fields whose text could not
 * be read (bad number, bad JSON). Empty optional fields are left out; what
 * remains is for the server's validator to judge.
 */
export function collectInputs(model, read) {
  const problems = [];
  const value = (f) => {
    if (f.kind === "object") {
      const out = {};
      let any = false;
      for (const child of f.children) {
        const v = value(child);
        if (v !== undefined) {
          put(out, child.path[child.path.length - 1], v);
          any = true;
        }
      }
      return any || f.required ? out : undefined;
    }
    const raw = read(f);
    if (f.kind === "boolean") return raw === true || raw === false ? raw : undefined;
    const text = typeof raw === "string" ? raw : "";
    if (text.trim() === "") return f.kind === "string" && text !== "" ? text : undefined;
    switch (f.kind) {
      case "string":
        return text;
      case "number":
      case "integer": {
        const n = Number(text.trim());
        if (!Number.isFinite(n)) {
          problems.push({ field: f.id, message: "not a number" });
          return undefined;
        }
        return n;
      }
      case "enum": {
        const option = f.options[Number(text)];
        return option === undefined ? undefined : option.value;
      }
      default:
        try {
          return JSON.parse(text);
        } catch (error) {
          problems.push({ field: f.id, message: `not valid JSON (${clip(error instanceof Error ? error.message : String(error), 200)})` });
          return undefined;
        }
    }
  };
  const inputs = value(model.root);
  return { inputs: inputs === undefined ? {} : inputs, problems };
}

/** `$.a.b[1]["odd key"]` (the server's error paths) → ["a", "b", "1", "odd key"], or null. */
export function parseErrorPath(text) {
  if (!text.startsWith("$")) return null;
  const path = [];
  let i = 1;
  while (i < text.length) {
    if (text[i] === ".") {
      const match = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text.slice(i + 1));
      if (match === null) return null;
      path.push(match[0]);
      i += 1 + match[0].length;
    } else if (text[i] === "[" && text[i + 1] === '"') {
      let j = i + 2;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      try {
        path.push(JSON.parse(text.slice(i + 1, j + 1)));
      } catch {
        return null;
      }
      if (text[j + 1] !== "]") return null;
      i = j + 2;
    } else if (text[i] === "[") {
      const match = /^\[(\d+)\]/.exec(text.slice(i));
      if (match === null) return null;
      path.push(match[1]);
      i += match[0].length;
    } else {
      return null;
    }
  }
  return path;
}

const REQUIRED_INPUT = "Missing required input: ";
const REQUIRED_PROPERTY = "Missing required property: ";

/** One server error string (`$.a: message`, `Missing required input: x`) as {path, message}, or null. */
export function readServerError(error) {
  if (typeof error !== "string") return null;
  if (error.startsWith(REQUIRED_INPUT)) return { path: [error.slice(REQUIRED_INPUT.length)], message: "required" };
  // The path ends at the first ": " outside a quoted key.
  for (let at = error.indexOf(": "); at >= 0; at = error.indexOf(": ", at + 1)) {
    const path = parseErrorPath(error.slice(0, at));
    if (path === null) continue;
    const message = error.slice(at + 2);
    if (message.startsWith(REQUIRED_PROPERTY)) return { path: [...path, message.slice(REQUIRED_PROPERTY.length)], message: "required" };
    return { path, message };
  }
  return null;
}

/**
 * The server's error strings placed on the fields they name: the deepest
 * field whose path starts the error's path (a JSON field takes everything
 * under it). Errors naming no field (or the root) are `general`.
 */
export function errorsByField(model, errors) {
  const byField = new Map();
  const general = [];
  // Every field but an object root: a JSON root takes every error.
  const leaves = [...model.fields.values()].filter((f) => f.path.length > 0 || f.kind !== "object");
  for (const error of Array.isArray(errors) ? errors : []) {
    const read = readServerError(error);
    let best = null;
    if (read !== null) {
      for (const f of leaves) {
        if (f.path.length > read.path.length || (best !== null && f.path.length <= best.path.length)) continue;
        if (f.path.every((key, i) => key === read.path[i])) best = f;
      }
    }
    if (best === null) {
      general.push(String(error));
      continue;
    }
    const rest = read.path.slice(best.path.length);
    const message = rest.length === 0 ? read.message : `${rest.join(".")}: ${read.message}`;
    const list = byField.get(best.id) ?? [];
    list.push(message);
    byField.set(best.id, list);
  }
  return { byField, general };
}
