/**
 * File-name slugs for private playbooks. A slug is the playbook's identity
 * (`private/<slug>`, file `<slug>.md`), so it must be safe as a file name on
 * every platform a studio runs: lowercase ASCII, digits and single dashes.
 */

export const MAX_SLUG_LENGTH = 60;
const FALLBACK_SLUG = "playbook";

/** What a stored slug may look like; anything else is never turned into a path. */
const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Hand-named files may be a little longer than generated slugs. */
const MAX_ACCEPTED_SLUG_LENGTH = 100;

// Letters NFKD leaves whole; the common Latin ones get a readable spelling.
const TRANSLITERATIONS: Readonly<Record<string, string>> = {
  ß: "ss", ẞ: "ss", æ: "ae", Æ: "ae", œ: "oe", Œ: "oe", ø: "o", Ø: "o",
  đ: "d", Đ: "d", ð: "d", Ð: "d", ł: "l", Ł: "l", þ: "th", Þ: "th", ı: "i",
};

// Device names Windows refuses as a file stem whatever the extension.
const WINDOWS_RESERVED = new Set([
  "con", "prn", "aux", "nul",
  ...Array.from({ length: 9 }, (_, i) => `com${i + 1}`),
  ...Array.from({ length: 9 }, (_, i) => `lpt${i + 1}`),
]);

export function isValidSlug(slug: string): boolean {
  return (
    slug.length <= MAX_ACCEPTED_SLUG_LENGTH &&
    SLUG_PATTERN.test(slug) &&
    !WINDOWS_RESERVED.has(slug)
  );
}

/** The base slug of a title, before uniqueness suffixes. Never empty, never reserved. */
export function slugify(title: string): string {
  const ascii = title
    .replace(/[^\u0000-\u007f]/gu, (ch) => TRANSLITERATIONS[ch] ?? ch)
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase();
  const dashed = ascii.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  const cut = trimToLength(dashed, MAX_SLUG_LENGTH);
  if (cut === "") return FALLBACK_SLUG;
  return WINDOWS_RESERVED.has(cut) ? `${cut}-${FALLBACK_SLUG}` : cut;
}

/**
 * The n-th candidate for a base slug: n = 1 is the base itself, then
 * `base-2`, `base-3` … with the base shortened so the whole stays within
 * MAX_SLUG_LENGTH.
 */
export function slugCandidate(base: string, n: number): string {
  if (n <= 1) return base;
  const suffix = `-${n}`;
  const head = trimToLength(base, MAX_SLUG_LENGTH - suffix.length);
  return `${head === "" ? FALLBACK_SLUG : head}${suffix}`;
}

function trimToLength(slug: string, max: number): string {
  if (slug.length <= max) return slug;
  // Prefer cutting at a word boundary when one is reasonably close.
  const cut = slug.slice(0, max);
  const dash = cut.lastIndexOf("-");
  const atWord = dash >= max / 2 ? cut.slice(0, dash) : cut;
  return atWord.replace(/-+$/, "");
}
