/**
 * The bounds of every string a playbook store keeps, in one place: the
 * `recipe` tool's schemas advertise them and both stores refuse a write past
 * them, so nothing a caller sends is stored (and later served to anyone in a
 * search hit or a `similar` list) at a size the tool would not have taken.
 * Lengths are in UTF-16 code units, as JSON Schema's maxLength counts them.
 */
import type { PlaybookPatch } from "./playbook-values.js";

export const PLAYBOOK_LIMITS = Object.freeze({
  title: 200,
  summary: 2000,
  whenToUse: 8000,
  steps: 80,
  stepTitle: 200,
  stepDetail: 8000,
  acceptanceCriteria: 80,
  criterion: 2000,
  tags: 40,
  tag: 64,
  /**
   * The tool's bound; the stores bound the document by the whole playbook's
   * size instead (DEFAULT_MAX_FILE_BYTES, 1 MiB as the file form), so
   * library callers can keep longer hand-written notes.
   */
  document: 80_000,
  idempotencyKey: 200,
});

/** How much of a caller-supplied name an answer repeats. */
const ECHO_PREFIX = 80;

/** The first field of `fields` (the document aside: see above) past its bound, as an invalid_input message; null when all fit. */
export function lengthProblem(fields: PlaybookPatch): string | null {
  const L = PLAYBOOK_LIMITS;
  const over = (value: string | undefined, max: number, name: string): string | null =>
    value !== undefined && value.length > max ? `${name} is ${value.length} characters; the limit is ${max}` : null;
  const scalars = [
    over(fields.title, L.title, "title"),
    over(fields.summary, L.summary, "summary"),
    over(fields.whenToUse, L.whenToUse, "whenToUse"),
  ];
  for (const problem of scalars) if (problem) return problem;
  const lists: Array<[readonly unknown[] | undefined, number, string]> = [
    [fields.steps, L.steps, "steps"],
    [fields.acceptanceCriteria, L.acceptanceCriteria, "acceptanceCriteria"],
    [fields.tags, L.tags, "tags"],
  ];
  for (const [list, max, name] of lists) {
    if (list !== undefined && list.length > max) return `${name} has ${list.length} entries; the limit is ${max}`;
  }
  for (const [i, step] of (fields.steps ?? []).entries()) {
    const problem = over(step.title, L.stepTitle, `steps[${i}].title`) ?? over(step.detail, L.stepDetail, `steps[${i}].detail`);
    if (problem) return problem;
  }
  for (const [i, item] of (fields.acceptanceCriteria ?? []).entries()) {
    const problem = over(item, L.criterion, `acceptanceCriteria[${i}]`);
    if (problem) return problem;
  }
  for (const [i, tag] of (fields.tags ?? []).entries()) {
    const problem = over(tag, L.tag, `tags[${i}]`);
    if (problem) return problem;
  }
  return null;
}

/** A caller-supplied name as an answer may echo it: at most ECHO_PREFIX characters. */
export function echoed(value: string): string {
  return value.length > ECHO_PREFIX ? `${value.slice(0, ECHO_PREFIX - 3)}...` : value;
}
