/**
 * Plain mapping keys of one document for the YAML subset parser, cached by
 * a hash of their text: a pack repeats the same few dozen keys in every
 * entry, and handing back the one string V8 has already made a property key
 * spares each repeat a slice and a string-table lookup (that lookup was ~15%
 * of parse time on the bench packs; net, the cache measured 3–10% faster).
 */
import { plainKey } from "./yaml-subset-scalars.js";

/** Slots of the cache (a power of two). */
const KEY_SLOTS = 512;
/** Longer keys are sliced every time: they rarely repeat. */
const MAX_CACHED_KEY = 48;
/** Documents shorter than this (frontmatter) repeat too few keys to pay for the cache. */
const MIN_CACHED_TEXT = 4096;

export class PlainKeys {
  private readonly src: string;
  private text: Array<string | undefined> | null = null;
  private value: string[] | null = null;

  constructor(src: string) {
    this.src = src;
  }

  /** The object key the plain key text `src[start, end)` stands for (see plainKey). */
  at(start: number, end: number): string {
    const src = this.src;
    const n = end - start;
    if (n > MAX_CACHED_KEY || src.length < MIN_CACHED_TEXT) return plainKey(src.slice(start, end));
    const texts = (this.text ??= new Array<string | undefined>(KEY_SLOTS));
    const values = (this.value ??= new Array<string>(KEY_SLOTS));
    // Length, both ends, the middle and the second character: few collisions among real keys.
    const slot =
      ((n * 31 + src.charCodeAt(start)) * 31 +
        src.charCodeAt(end - 1) * 7 +
        src.charCodeAt(start + (n >> 1)) * 13 +
        src.charCodeAt(start + (1 % n)) * 17) &
      (KEY_SLOTS - 1);
    const text = texts[slot];
    if (text !== undefined && text.length === n) {
      let i = 0;
      while (i < n && text.charCodeAt(i) === src.charCodeAt(start + i)) i++;
      if (i === n) return values[slot]!;
    }
    const raw = src.slice(start, end);
    const key = plainKey(raw);
    texts[slot] = raw;
    values[slot] = key;
    return key;
  }
}
