/**
 * Exact decimal `multipleOf`. Binary floating point gets 0.07 / 0.01 and 0.3 / 0.1 wrong,
 * so both numbers are read back as the shortest decimal that round-trips (what the JSON
 * author wrote) and compared as scaled integers: doubles while they stay exact, BigInt past.
 */

export interface Decimal {
  /** Significant digits, without sign or point. */
  readonly digits: string;
  /** value = digits · 10^exponent */
  readonly exponent: number;
}

/** For a finite number; the sign is dropped (it does not change divisibility). */
export function toDecimal(x: number): Decimal {
  const s = Math.abs(x).toString();
  const e = s.indexOf("e");
  let mantissa = e === -1 ? s : s.slice(0, e);
  let exponent = e === -1 ? 0 : Number(s.slice(e + 1));
  const dot = mantissa.indexOf(".");
  if (dot !== -1) {
    exponent -= mantissa.length - dot - 1;
    mantissa = mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  }
  return { digits: mantissa, exponent };
}

export function isDecimalMultiple(value: number, divisor: Decimal, divisorNumber: number): boolean {
  if (value === 0) return true;
  if (Number.isSafeInteger(value) && Number.isSafeInteger(divisorNumber)) return value % divisorNumber === 0;
  const v = toDecimal(value);
  const e = Math.min(v.exponent, divisor.exponent);
  const sv = v.exponent - e;
  const sd = divisor.exponent - e;
  // Both scaled operands below 2^53 are exact doubles, so % is exact as well.
  if (v.digits.length + sv <= 15 && divisor.digits.length + sd <= 15) {
    return (Number(v.digits) * 10 ** sv) % (Number(divisor.digits) * 10 ** sd) === 0;
  }
  return (BigInt(v.digits) * 10n ** BigInt(sv)) % (BigInt(divisor.digits) * 10n ** BigInt(sd)) === 0n;
}

/**
 * A cheaper exact answer for divisors with at most 15 significant digits and at most 22
 * decimals: with P = 10^k (k the divisor's decimals), m = round(value·P) and
 * |value·P| < 2^50, the doubles near `value` are closer together than 1/P, so at most one
 * k-decimal number rounds to `value`; when m/P gives `value` back, that number is m/P, it is
 * the shortest decimal of `value` (what `isDecimalMultiple` reads), and divisibility is
 * m % (divisor·P) on exact integers. The no is exact too: a multiple of the divisor has at
 * most k decimals, and for one below 2^50 once scaled, value·P is off by less than 1/4
 * from it, so m is it and m/P gives `value` back; a value that fails either test is no
 * multiple. null when `value` is out of that range (`isDecimalMultiple` decides), and the
 * test itself is null when `divisor` does not qualify.
 */
export function scaledMultipleTest(divisor: Decimal): ((value: number) => boolean | null) | null {
  const k = divisor.exponent < 0 ? -divisor.exponent : 0;
  if (k > 22 || divisor.digits.length > 15) return null;
  const scale = 10 ** k;
  const step = Number(divisor.digits) * 10 ** (divisor.exponent + k);
  if (!Number.isSafeInteger(step) || step === 0) return null;
  return (value) => {
    const scaled = value * scale;
    if (!(scaled < 2 ** 50 && scaled > -(2 ** 50))) return null;
    const m = Math.round(scaled);
    return m / scale === value && m % step === 0;
  };
}
