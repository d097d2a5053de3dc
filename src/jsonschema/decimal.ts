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
