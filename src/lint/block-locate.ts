/**
 * A fast, indentation-based locator for block-style YAML (what packs are
 * written in). It answers only when the path runs through block mappings and
 * sequences it can read with certainty and returns null otherwise (flow
 * collections on the way, anchors, tags, tabs, `-` alone on a line), so the
 * caller falls back to a full `yaml` parse. Positions agree with the `yaml`
 * package's node ranges; a test checks that on every node of real packs.
 */
import type { EntryPath } from "./types.js";
import type { SourcePos } from "./yaml-locate.js";

const KEY = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#'"{[\]},&*!|>%@`-][^#]*?|-[^\s#][^#]*?))[ \t]*:(?:[ \t]+|$)/;

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function isContent(line: string): boolean {
  const t = line.trim();
  return t !== "" && !t.startsWith("#");
}

function isDash(t: string): boolean {
  return t === "-" || t.startsWith("- ");
}

/** `lines` is one block (e.g. a recipe entry, re-indented); `lineOffset` maps its first line to the file. */
export function blockLocate(text: string, lineOffset: number, path: EntryPath, atKey: boolean): SourcePos | null {
  const lines = text.split("\n");
  if (lines.some((l) => /^[ ]*\t/.test(l))) return null;
  const at = (i: number, col: number): SourcePos => ({ line: i + 1 + lineOffset, column: col + 1 });
  let lo = 0;
  let hi = lines.length;
  if (path.length === 0) {
    const first = lines.findIndex(isContent);
    return first < 0 ? null : at(first, indentOf(lines[first]!));
  }
  for (let p = 0; p < path.length; p++) {
    const seg = path[p]!;
    const last = p === path.length - 1;
    let first = lo;
    while (first < hi && !isContent(lines[first]!)) first++;
    if (first >= hi) return null;
    const ind = indentOf(lines[first]!);

    if (typeof seg === "number") {
      let count = -1;
      let item = -1;
      for (let j = first; j < hi; j++) {
        const l = lines[j]!;
        if (!isContent(l) || indentOf(l) > ind) continue;
        if (indentOf(l) < ind || !isDash(l.trimStart())) return null;
        if (++count === seg) {
          item = j;
          break;
        }
      }
      if (item < 0) return null;
      const t = lines[item]!.trimStart();
      if (t === "-") return null;
      const contentCol = ind + 1 + (t.slice(1).length - t.slice(1).trimStart().length);
      let end = item + 1;
      while (end < hi && !(isContent(lines[end]!) && indentOf(lines[end]!) <= ind)) end++;
      const content = t.slice(1).trimStart();
      if (/^[&*!]/.test(content)) return null;
      if (last) return at(item, contentCol);
      if (/^[[{"'|>]/.test(content)) return null;
      lines[item] = " ".repeat(contentCol) + content;
      lo = item;
      hi = end;
      continue;
    }

    let found = -1;
    let m: RegExpExecArray | null = null;
    for (let j = first; j < hi; j++) {
      const l = lines[j]!;
      if (!isContent(l) || indentOf(l) > ind) continue;
      if (indentOf(l) < ind) return null;
      const t = l.trimStart();
      if (isDash(t) || t.startsWith("? ")) return null;
      m = KEY.exec(t);
      if (m === null) return null;
      const key = m[1] !== undefined ? JSON.parse(`"${m[1]}"`) : m[2] !== undefined ? m[2].replace(/''/g, "'") : m[3]!;
      if (key === String(seg)) {
        found = j;
        break;
      }
    }
    if (found < 0 || m === null) return null;
    if (last && atKey) return at(found, ind);
    const line = lines[found]!;
    const valueCol = ind + m[0].length;
    const rest = line.slice(valueCol).replace(/[ \t]+#.*$/, "");
    if (rest !== "" && !rest.startsWith("#")) {
      if (/^[&*!]/.test(rest)) return null;
      if (last) return at(found, valueCol);
      return null;
    }
    // The value sits on the following lines: deeper, or a sequence at the key's own indent.
    let next = found + 1;
    while (next < hi && !isContent(lines[next]!)) next++;
    if (next >= hi) return null;
    const nextInd = indentOf(lines[next]!);
    const sameIndentSeq = nextInd === ind && isDash(lines[next]!.trimStart());
    if (nextInd < ind || (nextInd === ind && !sameIndentSeq)) return null;
    let end = next;
    while (end < hi) {
      const l = lines[end]!;
      if (isContent(l)) {
        const li = indentOf(l);
        if (li < ind || (li === ind && !(sameIndentSeq && isDash(l.trimStart())))) break;
      }
      end++;
    }
    if (/^[ ]*[&*!]/.test(lines[next]!)) return null;
    if (last) return at(next, nextInd);
    lo = next;
    hi = end;
  }
  return null;
}
