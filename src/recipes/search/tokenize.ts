/**
 * Tokenizer shared by indexing and querying. Identifiers in recipes are
 * snake_case, kebab-case or camelCase (`bevel_edges`, `fem-review`,
 * `polyReduce`) while agents write prose ("bevel edges"), so every compound
 * is emitted both as its parts and as the whole word.
 */

/** Longest token kept; longer runs (base64, hashes) only cost index space. */
const MAX_TOKEN = 40;
/** Hard cap on the text a single tokenize call looks at (hostile queries). */
const MAX_INPUT = 20_000;

const WORD = /[\p{L}\p{N}]+(?:[_\-'.][\p{L}\p{N}]+)*/gu;
/** camelCase and acronym boundaries; digits stay attached (`maya2024`, `uv2d`). */
const CAMEL = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

export function tokenize(text: string): string[] {
  const out: string[] = [];
  const source = text.length > MAX_INPUT ? text.slice(0, MAX_INPUT) : text;
  for (const match of source.matchAll(WORD)) {
    const word = match[0];
    if (word.length > MAX_TOKEN * 2) continue;
    const parts: string[] = [];
    for (const piece of word.split(/[_\-'.]+/)) {
      for (const sub of piece.split(CAMEL)) if (sub) parts.push(sub);
    }
    for (const part of parts) if (part.length <= MAX_TOKEN) out.push(part);
    if (parts.length > 1) {
      const joined = parts.join("");
      if (joined.length <= MAX_TOKEN) out.push(joined);
    }
  }
  return out;
}

/**
 * Words that carry no meaning for ranking. BM25's idf already discounts them,
 * but with prefix/fuzzy expansion a query word like "i" or "the" would fan
 * out into hundreds of terms.
 */
const STOP = new Set(
  (
    "a an and are as at be but by can do does for from how i if in into is it its me my of on or " +
    "so that the their them then there these this those to was we what when where which who why " +
    "will with you your want need should would could please some any all"
  ).split(" "),
);

/** Light plural stemmer: enough for "edges"/"edge", "vertices" stays itself. */
function stem(term: string): string {
  if (term.length <= 3) return term;
  if (term.endsWith("ies") && term.length > 4) return term.slice(0, -3) + "y";
  if (term.endsWith("sses")) return term.slice(0, -2);
  if (term.endsWith("ss") || term.endsWith("us") || term.endsWith("is")) return term;
  if (term.endsWith("s")) return term.slice(0, -1);
  return term;
}

/** Lower-cases, drops stop words and applies the light stemmer. */
export function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (STOP.has(lower)) return null;
  return stem(lower);
}

/** Whole query terms after processing, used to decide prefix/fuzzy per term. */
export function queryTerms(text: string): string[] {
  const out: string[] = [];
  for (const token of tokenize(text)) {
    const term = processTerm(token);
    if (term) out.push(term);
  }
  return out;
}
