/**
 * The import graph of a source tree, read syntactically by the TypeScript
 * compiler: every relative `import`/`export … from`, dynamic `import()` and
 * `import("…")` type reference, type-only ones included — a type import is
 * still knowledge of the other module, so it counts for the layer rules, and
 * a circle of types is still a circle a reader has to hold in their head.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export interface ImportEdge {
  /** Importing file, relative to the tree's root, "/"-separated. */
  readonly from: string;
  /** Imported file, relative to the tree's root (may lie outside it: "../x.ts"). */
  readonly to: string;
  readonly typeOnly: boolean;
}

export interface ImportGraph {
  readonly files: readonly string[];
  readonly edges: readonly ImportEdge[];
  /** Relative specifiers that name no file in the tree: "file: spec". */
  readonly unresolved: readonly string[];
}

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) tsFiles(full, out);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

function specifiers(file: string): { spec: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  const found: { spec: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      found.push({ spec: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ spec: node.arguments[0].text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ spec: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((s) => s.spec.startsWith("./") || s.spec.startsWith(".."));
}

export function importGraph(root: string): ImportGraph {
  const absolute = tsFiles(root).sort();
  const rel = (p: string): string => path.relative(root, p).split(path.sep).join("/");
  const known = new Set(absolute.map(rel));
  const edges: ImportEdge[] = [];
  const unresolved: string[] = [];
  for (const file of absolute) {
    for (const { spec, typeOnly } of specifiers(file)) {
      const target = rel(path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts")));
      if (!known.has(target) && !target.startsWith("..")) unresolved.push(`${rel(file)}: ${spec}`);
      edges.push({ from: rel(file), to: target, typeOnly });
    }
  }
  return { files: [...known], edges, unresolved };
}

/**
 * Every import circle, each as the files of one strongly connected
 * component (Tarjan), walked into a readable loop "a → b → … → a".
 */
export function importCycles(graph: ImportGraph): string[] {
  const next = new Map<string, string[]>();
  for (const file of graph.files) next.set(file, []);
  for (const edge of graph.edges) if (next.has(edge.to)) next.get(edge.from)!.push(edge.to);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[] = [];
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = new Set<string>();
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.add(w);
    } while (w !== v);
    const selfLoop = next.get(v)!.includes(v);
    if (component.size > 1 || selfLoop) cycles.push(loopThrough(v, component, next));
  };
  for (const file of graph.files) if (!index.has(file)) connect(file);
  return cycles;
}

/** A shortest loop from `start` back to itself inside one component. */
function loopThrough(start: string, component: Set<string>, next: Map<string, string[]>): string {
  const parent = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of next.get(v)!) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u: string | undefined = v; u !== undefined && u !== start; u = parent.get(u)) path.splice(1, 0, u);
        return [...path, start].join(" → ");
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...component].join(" → ");
}

export interface LayerRule {
  /** Files under this folder ("recipes/")… */
  readonly from: string;
  /** …import nothing under any of these ("server/"), or "" for nothing of the project at all but their own folder. */
  readonly never: readonly string[];
  readonly why: string;
}

/** Edges breaking a rule: "from → to (why)". */
export function layerViolations(graph: ImportGraph, rules: readonly LayerRule[]): string[] {
  const out: string[] = [];
  for (const edge of graph.edges) {
    for (const rule of rules) {
      if (!edge.from.startsWith(rule.from)) continue;
      const broken = rule.never.some((prefix) => (prefix === "" ? !edge.to.startsWith(rule.from) : edge.to.startsWith(prefix)));
      if (broken) out.push(`${edge.from} → ${edge.to}${edge.typeOnly ? " (type-only)" : ""}: ${rule.why}`);
    }
  }
  return out;
}
