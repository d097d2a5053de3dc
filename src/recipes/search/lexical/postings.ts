
/**
 * Documents, field lengths, document frequencies and postings of the lexical
 * index, all in flat typed arrays; no document text is kept.
 *
 * A document lives in a slot; a posting is (slot, field, tf) for one term.
 * Postings sit in two places: `main`, a compressed-row layout (per term one
 * contiguous range, in slot order) built by `compact()`, and the delta: the
 * documents put since, whose (term, field) pairs are their slots' `forward`
 * entries (below), with only each posting's meta kept apart. Each slot lists
 * its own (term, field) pairs in `forward`, so removing a document takes its
 * counts out of the statistics at once; its postings only go at the next compaction,
 * which also renumbers slots (keeping their order) and, when many terms
 * died, terms. The owner compacts when `needsCompaction` says the delta or
 * the dead share has grown past what a query should scan.
 */
const DELTA_SHIFT = 14;
const DELTA_CHUNK = 1 << DELTA_SHIFT;
/** forward entries are term * FORWARD_FIELDS + field. */
const FORWARD_FIELDS = 8;
/**
 * A posting's meta is field | tf << 3 (tf at most 0x1fffffff). It is stored
 * in one byte, field | min(tf, TF_IN_BYTE) << 3: a byte whose tf part is
 * TF_IN_BYTE has its tf in a side map instead (a term 31 or more times in
 * one field: rare). A byte rather than a u32 per posting saves 3 bytes of
 * each of the ~1.6 million postings a 20,000-recipe studio catalog holds,
 * in the delta log a load fills (garbage at the first compaction, but
 * memory the allocator keeps) and in the main postings alike.
 */
const TF_IN_BYTE = 31;

/** Meta bytes at or above this have their tf beside them. */
export const SATURATED_META = TF_IN_BYTE << 3;

function metaByte(meta: number): number {
  return meta >= SATURATED_META ? (meta & 7) | SATURATED_META : meta;
}

export class PostingStore {
  readonly fields: number;
  /** Per slot: its id. Dead slots keep theirs until compaction. */
  ids: string[] = [];
  /** Live id -> slot. */
  slotOf = new Map<string, number>();
  alive: Uint8Array = new Uint8Array(0);
  /** slot * fields + field -> length of that field (unique tokens, as MiniSearch counts). */
  lengths: Uint32Array = new Uint32Array(0);
  /** Sum of each field's length over live documents. */
  readonly lengthSum: Float64Array;
  /** term * fields + field -> live documents holding the term in that field. */
  df: Uint32Array = new Uint32Array(0);
  /** term -> its live postings (main and delta), so compaction sizes ranges without a counting pass. */
  private termPostings: Uint32Array = new Uint32Array(0);
  /** Main postings: term t's are [offsets[t], offsets[t+1]), each a slot in mainSlots and a meta byte in mainMeta (mainMetaAt). */
  offsets: Uint32Array = new Uint32Array(1);
  mainSlots: Uint32Array = new Uint32Array(0);
  mainMeta: Uint8Array = new Uint8Array(0);
  /** Main posting index -> tf, for postings whose meta byte is saturated (see TF_IN_BYTE). */
  mainTf = new Map<number, number>();
  /**
   * Delta postings since the last compaction: those of slots deltaSlots and
   * up, in slot order. Their term and field are the slots' forward entries
   * and their slot follows from forwardStart, so only each one's meta byte
   * is kept here, in chunks of DELTA_CHUNK: appending never copies, and a
   * bulk load touches its memory once. (A log of (term, slot, meta) triples
   * cost twelve times this, all of it garbage at the first compaction.)
   */
  private deltaMeta: Uint8Array[] = [];
  /** Delta index -> tf, for saturated meta bytes. */
  private deltaTf = new Map<number, number>();
  deltaCount = 0;
  /** The first slot opened since the last compaction. */
  private deltaSlots = 0;
  /** Per slot: where its (term, field) pairs start in `forward`; postingsPerSlot says how many. */
  private forwardStart: Uint32Array = new Uint32Array(0);
  private postingsPerSlot: Uint32Array = new Uint32Array(0);
  private forward: Uint32Array = new Uint32Array(0);
  private forwardCount = 0;
  slotCount = 0;
  /** Bumped whenever a field length or the live set changes (derived per-slot data is stale then). */
  generation = 0;
  /** Slots placed by the last compaction (below this) have a rank. */
  orderedSlots = 0;
  /** Per slot below orderedSlots: its position in id order. */
  rank: Int32Array = new Int32Array(0);
  liveCount = 0;
  private deadPostings = 0;

  constructor(fields: number) {
    if (fields > FORWARD_FIELDS) throw new Error(`at most ${FORWARD_FIELDS} fields`);
    this.fields = fields;
    this.lengthSum = new Float64Array(fields);
  }

  /** Terms the main layout covers; newer ids have delta postings only. */
  get mainTerms(): number {
    return this.offsets.length - 1;
  }

  /** Postings in the main layout. */
  get mainCount(): number {
    return this.mainSlots.length;
  }

  /** Main posting i's meta, field | tf << 3. */
  mainMetaAt(i: number): number {
    const byte = this.mainMeta[i]!;
    return byte >= SATURATED_META ? ((byte & 7) | (this.mainTf.get(i)! << 3)) >>> 0 : byte;
  }

  /** Opens a slot for a document; its postings and lengths follow before the next slot opens. */
  openSlot(id: string): number {
    const slot = this.slotCount++;
    this.ids[slot] = id;
    this.slotOf.set(id, slot);
    if (slot >= this.alive.length) {
      this.alive = ensure(this.alive, this.slotCount, u8);
      this.lengths = ensure(this.lengths, this.alive.length * this.fields, u32);
      this.postingsPerSlot = ensure(this.postingsPerSlot, this.alive.length, u32);
      this.forwardStart = ensure(this.forwardStart, this.alive.length, u32);
    }
    this.alive[slot] = 1;
    this.forwardStart[slot] = this.forwardCount;
    this.liveCount++;
    return slot;
  }

  setLength(slot: number, field: number, length: number): void {
    this.lengths[slot * this.fields + field] = length;
    this.lengthSum[field]! += length;
    this.generation++;
  }

  /** One (term, field, tf) of the document in the slot opened last. */
  addPosting(term: number, slot: number, field: number, tf: number): void {
    const cell = term * this.fields + field;
    if (cell >= this.df.length) this.df = ensure(this.df, cell + 1, u32);
    this.df[cell]!++;
    if (term >= this.termPostings.length) this.termPostings = ensure(this.termPostings, term + 1, u32);
    this.termPostings[term]!++;
    const index = this.deltaCount++;
    const chunk = index >>> DELTA_SHIFT;
    if (chunk === this.deltaMeta.length) this.deltaMeta.push(new Uint8Array(DELTA_CHUNK));
    const meta = (field | (Math.min(tf, 0x1fffffff) << 3)) >>> 0;
    const byte = metaByte(meta);
    this.deltaMeta[chunk]![index & (DELTA_CHUNK - 1)] = byte;
    if (byte >= SATURATED_META) this.deltaTf.set(index, meta >>> 3);
    if (this.forwardCount === this.forward.length) this.forward = ensure(this.forward, this.forwardCount + 1, u32);
    this.forward[this.forwardCount++] = term * FORWARD_FIELDS + field;
    this.postingsPerSlot[slot]!++;
  }

  /** Takes a slot's document out of the statistics; its postings stay until compaction. */
  kill(slot: number): void {
    if (!this.alive[slot]) return;
    this.alive[slot] = 0;
    this.generation++;
    this.slotOf.delete(this.ids[slot]!);
    this.liveCount--;
    const F = this.fields;
    for (let f = 0; f < F; f++) this.lengthSum[f]! -= this.lengths[slot * F + f]!;
    const start = this.forwardStart[slot]!;
    const end = start + this.postingsPerSlot[slot]!;
    for (let i = start; i < end; i++) {
      const entry = this.forward[i]!;
      const term = Math.floor(entry / FORWARD_FIELDS);
      this.df[term * F + (entry % FORWARD_FIELDS)]!--;
      this.termPostings[term]!--;
    }
    this.deadPostings += this.postingsPerSlot[slot]!;
  }

  /** Live documents holding `term`, approximated by its most common field (as MiniSearch's callers did). */
  documentFrequency(term: number): number {
    let best = 0;
    const base = term * this.fields;
    if (base >= this.df.length) return 0;
    for (let f = 0; f < this.fields; f++) if (this.df[base + f]! > best) best = this.df[base + f]!;
    return best;
  }

  /** Each delta posting as (term, slot, meta), in the order it was added (slot order; removed slots included). */
  eachDelta(visit: (term: number, slot: number, meta: number) => void): void {
    const { forward, forwardStart, postingsPerSlot, deltaMeta, deltaTf } = this;
    let index = 0;
    for (let slot = this.deltaSlots; slot < this.slotCount; slot++) {
      const start = forwardStart[slot]!;
      const end = start + postingsPerSlot[slot]!;
      for (let p = start; p < end; p++, index++) {
        const byte = deltaMeta[index >>> DELTA_SHIFT]![index & (DELTA_CHUNK - 1)]!;
        visit(Math.floor(forward[p]! / FORWARD_FIELDS), slot, byte >= SATURATED_META ? ((byte & 7) | (deltaTf.get(index)! << 3)) >>> 0 : byte);
      }
    }
  }

  needsCompaction(deltaLimit: number): boolean {
    if (this.deltaCount > deltaLimit) return true;
    return this.deadPostings > Math.max(deltaLimit, (this.mainSlots.length + this.deltaCount) / 4);
  }

  /** Terms with no live posting left (candidates for the dictionary to drop). */
  deadTerms(termCount: number): number {
    let dead = 0;
    for (let t = 0; t < termCount; t++) if (!(this.termPostings[t]! > 0)) dead++;
    return dead;
  }

  /**
   * Rebuilds main from the live postings of main and delta, renumbering slots
   * densely in their order; `termMap` (old term -> new term, -1 dropped)
   * renumbers terms too.
   */
  compact(termCount: number, termMap: Int32Array | null): void {
    const F = this.fields;
    const newTerms = termMap ? countKept(termMap) : termCount;
    const mapTerm = (t: number): number => (termMap ? termMap[t]! : t);
    // Live slots keep their order: renumbered in order, each term's old
    // range stays in slot order and the delta's documents (put since, in slot
    // order) follow it, so every range lists its documents in slot order for
    // the scorer to walk side by side. That is also the order the documents
    // were put in, which the caller's filter tends to find them in memory.
    // Ranking ties are broken by id: through a rank numbered in id order.
    const live: number[] = [];
    for (let s = 0; s < this.slotCount; s++) if (this.alive[s]) live.push(s);
    const oldIds = this.ids;
    const slotMap = new Int32Array(this.slotCount).fill(-1);
    const slots = live.length;
    for (let i = 0; i < slots; i++) slotMap[live[i]!] = i;
    const byId = Array.from(live.keys()).sort((a, b) => (oldIds[live[a]!]! < oldIds[live[b]!]! ? -1 : 1));
    const rank = new Int32Array(slots);
    for (let r = 0; r < slots; r++) rank[byId[r]!] = r;

    const offsets = new Uint32Array(newTerms + 1);
    const known = Math.min(termCount, this.termPostings.length);
    for (let t = 0; t < known; t++) {
      const to = mapTerm(t);
      if (to >= 0) offsets[to + 1] = this.termPostings[t]!;
    }
    for (let t = 0; t < newTerms; t++) offsets[t + 1]! += offsets[t]!;
    const fill = offsets.slice(0, newTerms);
    const mainSlots = new Uint32Array(offsets[newTerms]!);
    const mainMeta = new Uint8Array(offsets[newTerms]!);
    const mainTf = new Map<number, number>();
    const { offsets: oldOffsets, mainSlots: oldSlots, mainMeta: oldMeta, mainTf: oldTf } = this;
    for (let t = 0; t < this.mainTerms; t++) {
      const to = termMap ? termMap[t]! : t;
      if (to < 0) continue;
      const end = oldOffsets[t + 1]!;
      let at = fill[to]!;
      for (let p = oldOffsets[t]!; p < end; p++) {
        const slot = slotMap[oldSlots[p]!]!;
        if (slot < 0) continue;
        mainSlots[at] = slot;
        const byte = oldMeta[p]!;
        mainMeta[at] = byte;
        if (byte >= SATURATED_META) mainTf.set(at, oldTf.get(p)!);
        at++;
      }
      fill[to] = at;
    }
    this.eachDelta((term, oldSlot, meta) => {
      const to = termMap ? termMap[term]! : term;
      const slot = slotMap[oldSlot]!;
      if (to < 0 || slot < 0) return;
      const at = fill[to]!++;
      mainSlots[at] = slot;
      const byte = metaByte(meta);
      mainMeta[at] = byte;
      if (byte >= SATURATED_META) mainTf.set(at, meta >>> 3);
    });
    this.offsets = offsets;
    this.mainSlots = mainSlots;
    this.mainMeta = mainMeta;
    this.mainTf = mainTf;
    this.deltaMeta = [];
    this.deltaTf = new Map();
    this.deltaCount = 0;
    this.deltaSlots = slots;
    this.orderedSlots = slots;
    this.rank = rank;
    this.deadPostings = 0;
    this.generation++;
    // Nothing removed and no term renumbered (a load's first compaction): the
    // per-slot arrays already read as they would rebuilt, so they stay
    // rather than be copied (~3.5 MB at 20,000 recipes) beside themselves.
    if (termMap === null && slots === this.slotCount) return;

    const ids: string[] = new Array<string>(slots);
    const lengths = new Uint32Array(slots * F);
    const perSlot = new Uint32Array(slots);
    const forwardStart = new Uint32Array(slots);
    let forwardSize = 0;
    for (const s of live) forwardSize += this.postingsPerSlot[s]!;
    const forward = new Uint32Array(forwardSize);
    let w = 0;
    for (let to = 0; to < slots; to++) {
      const s = live[to]!;
      const id = oldIds[s]!;
      ids[to] = id;
      // Removed ids already left slotOf; the live ones move in place.
      this.slotOf.set(id, to);
      for (let f = 0; f < F; f++) lengths[to * F + f] = this.lengths[s * F + f]!;
      const count = this.postingsPerSlot[s]!;
      perSlot[to] = count;
      forwardStart[to] = w;
      const start = this.forwardStart[s]!;
      for (let i = start; i < start + count; i++) {
        const entry = this.forward[i]!;
        forward[w++] = termMap ? mapTerm(Math.floor(entry / FORWARD_FIELDS)) * FORWARD_FIELDS + (entry % FORWARD_FIELDS) : entry;
      }
    }
    if (termMap) {
      const df = new Uint32Array(newTerms * F);
      const termPostings = new Uint32Array(newTerms);
      for (let t = 0; t < termMap.length; t++) {
        const to = termMap[t]!;
        if (to < 0) continue;
        for (let f = 0; f < F; f++) df[to * F + f] = this.df[t * F + f] ?? 0;
        termPostings[to] = this.termPostings[t] ?? 0;
      }
      this.df = df;
      this.termPostings = termPostings;
    }
    this.ids = ids;
    this.alive = new Uint8Array(slots).fill(1);
    this.lengths = lengths;
    this.postingsPerSlot = perSlot;
    this.forwardStart = forwardStart;
    this.forward = forward;
    this.forwardCount = forwardSize;
    this.slotCount = slots;
  }
}

function countKept(map: Int32Array): number {
  let n = 0;
  for (let i = 0; i < map.length; i++) if (map[i]! >= 0) n++;
  return n;
}

/** Growable typed arrays: the index keeps numbers flat, not in per-entry objects. */
type Typed = Uint8Array | Uint32Array | Int32Array | Float64Array;

/** `array` if it already holds `need` entries, else a copy at least twice as large. */
export function ensure<T extends Typed>(array: T, need: number, make: (length: number) => T): T {
  if (need <= array.length) return array;
  let length = Math.max(64, array.length * 2);
  while (length < need) length *= 2;
  const next = make(length);
  // Same element type on both sides: the union's set() overloads cannot see that.
  (next as Uint32Array).set(array as Uint32Array);
  return next;
}

const u8 = (n: number): Uint8Array => new Uint8Array(n);
const u32 = (n: number): Uint32Array => new Uint32Array(n);
export const i32 = (n: number): Int32Array => new Int32Array(n);
export const f64 = (n: number): Float64Array => new Float64Array(n);
