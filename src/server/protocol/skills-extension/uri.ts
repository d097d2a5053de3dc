/**
 * `skill://<skill>/<path>` URIs. A segment is percent-encoded as WHATWG URL
 * serialises it, plus `%`, `/` and `\`, so every URI we publish is already
 * in canonical form (what `new URL(uri).href` gives) and a segment decodes
 * back to the file name. A request's URI is read back through the same
 * encoding, so any spelling of a name (`Q&A.md`, `Q%26A.md`) finds the file.
 */
export const SKILL_SCHEME = "skill://";

const ENCODED_IN_SEGMENT = /[^\w!$&'()*+,.:;=@[\]|~-]/gu;

function encodeSegment(segment: string): string {
  return segment.replace(ENCODED_IN_SEGMENT, (c) => encodeURIComponent(c));
}

/** `skill://<skill>` (the skill's root directory) or `skill://<skill>/<a>/<b>`; null when unrepresentable. */
export function skillUri(skill: string, path: readonly string[] = []): string | null {
  let uri: string;
  try {
    uri = [SKILL_SCHEME + encodeSegment(skill), ...path.map(encodeSegment)].join("/");
  } catch {
    return null; // a lone surrogate cannot be percent-encoded
  }
  return canonical(uri) === uri ? uri : null;
}

function canonical(uri: string): string | null {
  try {
    return new URL(uri).href;
  } catch {
    return null;
  }
}

interface SkillAddress {
  readonly skill: string;
  /** Decoded path segments below the skill root; empty for the root itself. */
  readonly path: readonly string[];
}

/**
 * The skill and file a request names, or null when `uri` is not a skill URI
 * we could have published: query, fragment, empty or dot segments, or a
 * segment that decodes to a `/` or NUL.
 */
export function parseSkillUri(uri: unknown): SkillAddress | null {
  if (typeof uri !== "string" || uri.length > 8192 || !uri.startsWith(SKILL_SCHEME)) return null;
  const href = canonical(uri);
  if (href === null || href.includes("?") || href.includes("#")) return null;
  const parts = href.slice(SKILL_SCHEME.length).split("/");
  const decoded: string[] = [];
  for (const part of parts) {
    let text: string;
    try {
      text = decodeURIComponent(part);
    } catch {
      return null;
    }
    if (text === "" || text === "." || text === ".." || text.includes("/") || text.includes("\u0000")) return null;
    decoded.push(text);
  }
  const [skill, ...path] = decoded;
  return skill === undefined ? null : { skill, path };
}
