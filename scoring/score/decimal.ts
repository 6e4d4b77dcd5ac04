/**
 * Decimal arithmetic exactly as the official scoring script does it (chatgpt4pcg/scoring-and-ranking-script,
 * `bignumber.js` with its default configuration): `plus`, `minus` and `times` are exact, every
 * `dividedBy` rounds to 20 decimal places HALF_UP, numbers are printed with `toFixed()` (plain
 * notation, no trailing zeros). A private clone keeps this independent of anyone's global config.
 */
import BigNumber from 'bignumber.js';

export const Decimal = BigNumber.clone({ DECIMAL_PLACES: 20, ROUNDING_MODE: BigNumber.ROUND_HALF_UP, EXPONENTIAL_AT: [-7, 20] });
export type Decimal = BigNumber;

export const ZERO: Decimal = new Decimal(0);
export const ONE: Decimal = new Decimal(1);

/**
 * A JSON number as the script turns it into a BigNumber (`new BigNumber(x)` of the value `JSON.parse`
 * gave, i.e. of its shortest round-trip decimal, not of the digits in the file).
 */
export function decimalOf(value: number): Decimal {
  return new Decimal(value);
}

/** `toFixed()`: plain decimal notation, as every number in the official outputs is printed. */
export function plain(value: Decimal): string {
  return value.toFixed();
}
