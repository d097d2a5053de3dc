/**
 * Playbook values as the store keeps them: frozen copies holding only the
 * known fields, and the one check the store makes itself — that every string
 * can be written as UTF-8 and read back unchanged. Field constraints (lengths,
 * counts) belong to the tool layer's schema.
 */
import type { Playbook } from "../types.js";

/** A playbook's own fields as a caller writes them; tags may be left out. */
export interface PlaybookDraft extends Pick<Playbook, "title" | "summary" | "whenToUse" | "steps" | "acceptanceCriteria" | "document"> {
  readonly tags?: readonly string[];
}

export type PlaybookPatch = Partial<PlaybookDraft>;

export type PlaybookFields = Pick<Playbook, "title" | "summary" | "whenToUse" | "steps" | "acceptanceCriteria" | "tags" | "document">;

/** A playbook's own fields, in the order the store writes them and the tools show them. */
export function playbookFields(p: PlaybookDraft | Playbook): PlaybookFields {
  return {
    title: p.title,
    summary: p.summary,
    whenToUse: p.whenToUse,
    steps: p.steps.map((s) => ({ title: s.title, detail: s.detail })),
    acceptanceCriteria: [...p.acceptanceCriteria],
    tags: [...(p.tags ?? [])],
    document: p.document,
  };
}

export function freezePlaybook(p: Playbook): Playbook {
  return Object.freeze({
    slug: p.slug,
    title: p.title,
    summary: p.summary,
    whenToUse: p.whenToUse,
    steps: Object.freeze(p.steps.map((s) => Object.freeze({ title: s.title, detail: s.detail }))),
    acceptanceCriteria: Object.freeze([...p.acceptanceCriteria]),
    tags: Object.freeze([...p.tags]),
    document: p.document,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    revision: p.revision,
  });
}

// An unpaired surrogate cannot be written as UTF-8; storing it would change the text.
const LONE_SURROGATE = /\p{Cs}/u;

export function unstorableText(fields: PlaybookPatch): string | null {
  const check = (value: string | undefined, name: string): string | null =>
    value !== undefined && LONE_SURROGATE.test(value) ? `${name} contains an unpaired UTF-16 surrogate` : null;
  for (const key of ["title", "summary", "whenToUse", "document"] as const) {
    const problem = check(fields[key], key);
    if (problem) return problem;
  }
  for (const [i, step] of (fields.steps ?? []).entries()) {
    const problem = check(step.title, `steps[${i}].title`) ?? check(step.detail, `steps[${i}].detail`);
    if (problem) return problem;
  }
  for (const key of ["acceptanceCriteria", "tags"] as const) {
    for (const [i, item] of (fields[key] ?? []).entries()) {
      const problem = check(item, `${key}[${i}]`);
      if (problem) return problem;
    }
  }
  return null;
}
