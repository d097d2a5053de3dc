/**
 * Tokenizer shared by indexing and querying. Identifiers in recipes are
 * snake_case, kebab-case or camelCase (`bevel_edges`, `fem-review`,
 * `polyReduce`) while agents write prose ("bevel edges"), so every compound
 * is emitted both as its parts and as the whole word.
 *
 * The definition is the pair of Unicode regexes below (WORD, CAMEL). Running
 * them over every field of 20,000 recipes dominated index building, so ASCII
 * text takes a char-code scanner that yields exactly the same tokens: a word
 * can only span letters, digits and `_-'.`, so any other ASCII character
 * (space, comma, bracket …) ends every match, and the text between two such
 * characters is tokenized on its own — by the scanner when it is all ASCII,
 * by the regexes from the first word touching a non-ASCII character on.
 */

/** Longest token kept; longer runs (base64, hashes) only cost index space. */
const MAX_TOKEN = 40;
/** Words longer than this are skipped whole (they are data, not language). */
const MAX_WORD = MAX_TOKEN * 2;
/** Hard cap on the text a single tokenize call looks at (hostile queries). */
const MAX_INPUT = 20_000;

const WORD = /[\p{L}\p{N}]+(?:[_\-'.][\p{L}\p{N}]+)*/gu;
/** camelCase and acronym boundaries; digits stay attached (`maya2024`, `uv2d`). */
const CAMEL = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const SEPARATORS = /[_\-'.]+/;

/** ASCII classes: letters/digits, the in-word separators, case. 0 = ends a chunk. */
const ALNUM = 1;
const SEP = 2;
const LOWER = 4;
const UPPER = 8;
/** Non-ASCII: the chunk goes to the regex path. */
const WIDE = 16;

const ASCII: Uint8Array = (() => {
  const t = new Uint8Array(128);
  for (let c = 48; c <= 57; c++) t[c] = ALNUM;
  for (let c = 65; c <= 90; c++) t[c] = ALNUM | UPPER;
  for (let c = 97; c <= 122; c++) t[c] = ALNUM | LOWER;
  for (const ch of "_-'.") t[ch.charCodeAt(0)] = SEP;
  return t;
})();

function classAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? ASCII[c]! : WIDE;
}

/** Receives each token in order. */
type TokenSink = (token: string) => void;

/**
 * Receives each token in order as `text[start, end)` without allocating it;
 * when `joined`, the token is that range with its `_-'.` separators left out
 * (the whole-compound form of `bevel_edges`).
 */
type RangeSink = (text: string, start: number, end: number, joined: boolean) => void;

/** The reference definition, used for chunks holding non-ASCII characters. */
function regexTokens(text: string, emit: RangeSink): void {
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    if (word.length > MAX_WORD) continue;
    const parts: string[] = [];
    for (const piece of word.split(SEPARATORS)) {
      for (const sub of piece.split(CAMEL)) if (sub) parts.push(sub);
    }
    for (const part of parts) if (part.length <= MAX_TOKEN) emit(part, 0, part.length, false);
    if (parts.length > 1) {
      const joined = parts.join("");
      if (joined.length <= MAX_TOKEN) emit(joined, 0, joined.length, false);
    }
  }
}

/**
 * Splits one ASCII word [start, end) holding a separator or a capital, as
 * regexTokens would: parts as they are found, then the whole compound.
 */
function compoundTokens(text: string, start: number, end: number, emit: RangeSink): void {
  let partStart = start;
  let parts = 0;
  let separators = 0;
  let prev = 0;
  for (let k = start; k < end; k++) {
    const cls = classAt(text, k);
    if (cls & SEP) {
      if (k - partStart <= MAX_TOKEN) emit(text, partStart, k, false);
      parts++;
      separators++;
      partStart = k + 1;
      prev = 0;
      continue;
    }
    if (cls & UPPER && (prev & LOWER || (prev & UPPER && k + 1 < end && classAt(text, k + 1) & LOWER))) {
      if (k - partStart <= MAX_TOKEN) emit(text, partStart, k, false);
      parts++;
      partStart = k;
    }
    prev = cls;
  }
  if (end - partStart <= MAX_TOKEN) emit(text, partStart, end, false);
  parts++;
  if (parts > 1 && end - start - separators <= MAX_TOKEN) emit(text, start, end, separators > 0);
}

/**
 * Hands text[from, next ASCII chunk breaker) to the regex definition; `from`
 * is where a match can begin (no earlier match reaches past it), so the
 * regex sees the rest of the chunk exactly as it would have in context.
 * Returns where the scanner resumes.
 */
function wideChunk(text: string, from: number, emit: RangeSink): number {
  let end = from;
  while (end < text.length && classAt(text, end) !== 0) end++;
  regexTokens(text.slice(from, end), emit);
  return end;
}

/** Streams the tokens of `text` (bounded to its first MAX_INPUT characters) to `emit` as ranges. */
export function eachTokenRange(text: string, emit: RangeSink): void {
  const source = text.length > MAX_INPUT ? text.slice(0, MAX_INPUT) : text;
  const n = source.length;
  let i = 0;
  outer: while (i < n) {
    let cls = classAt(source, i);
    if (!(cls & ALNUM)) {
      i = cls & WIDE ? wideChunk(source, i, emit) : i + 1;
      continue;
    }
    const wordStart = i;
    let compound = false;
    for (;;) {
      while (i < n && (cls = classAt(source, i)) & ALNUM) {
        if (cls & UPPER) compound = true;
        i++;
      }
      if (i >= n) break;
      if (cls & WIDE) {
        // A non-ASCII character touches the word: the regex decides the whole chunk from here.
        i = wideChunk(source, wordStart, emit);
        continue outer;
      }
      if (cls & SEP && i + 1 < n) {
        const next = classAt(source, i + 1);
        if (next & ALNUM) {
          compound = true;
          i++;
          continue;
        }
        if (next & WIDE) {
          i = wideChunk(source, wordStart, emit);
          continue outer;
        }
      }
      break;
    }
    const length = i - wordStart;
    if (length > MAX_WORD) continue;
    if (!compound) {
      if (length <= MAX_TOKEN) emit(source, wordStart, i, false);
    } else {
      compoundTokens(source, wordStart, i, emit);
    }
  }
}

/** The token a RangeSink received, as a string. */
export function tokenText(text: string, start: number, end: number, joined: boolean): string {
  const range = start === 0 && end === text.length ? text : text.slice(start, end);
  return joined ? range.replace(/[_\-'.]/g, "") : range;
}

/** Streams the tokens of `text` (bounded to its first MAX_INPUT characters) to `emit`. */
function eachToken(text: string, emit: TokenSink): void {
  eachTokenRange(text, (t, start, end, joined) => emit(tokenText(t, start, end, joined)));
}

export function tokenize(text: string): string[] {
  const out: string[] = [];
  eachToken(text, (token) => out.push(token));
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
