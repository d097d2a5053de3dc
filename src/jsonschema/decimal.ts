/**
 * Exact decimal `multipleOf`. Binary floating point gets 0.07 / 0.01 and 0.3 / 0.1 wrong,
 * so both numbers are read back as the shortest decimal that round-trips (what the JSON
 * author wrote) and compared as scaled BigInts.
 */

export interface Decimal {
  readonly digits: bigint;
  readonly exponent: number;
}

/** x = digits · 10^exponent, for a finite non-negative number. */
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
  return { digits: BigInt(mantissa), exponent };
}

export function isDecimalMultiple(value: number, divisor: Decimal, divisorNumber: number): boolean {
  if (value === 0) return true;
  if (Number.isSafeInteger(value) && Number.isSafeInteger(divisorNumber)) return value % divisorNumber === 0;
  const v = toDecimal(value);
  const e = Math.min(v.exponent, divisor.exponent);
  const scaledValue = v.digits * 10n ** BigInt(v.exponent - e);
  const scaledDivisor = divisor.digits * 10n ** BigInt(divisor.exponent - e);
  return scaledValue % scaledDivisor === 0n;
}
