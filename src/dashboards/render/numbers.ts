/**
 * Arithmetic over spec-sized arrays. A chart series may hold millions of numbers; spreading them into a
 * call (`Math.min(...values)`) puts every one on the stack and overflows it, so these use loops.
 */

/** The smallest and largest value, nulls skipped; null when there is none. */
export function extent(values: ReadonlyArray<number | null>): { min: number; max: number } | null {
  let min = Infinity;
  let max = -Infinity;
  for (const value of values) {
    if (value === null) continue;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return min === Infinity ? null : { min, max };
}

/** The length of the longest of some arrays (0 for none). */
export function longestLength(arrays: ReadonlyArray<{ length: number }>, atLeast = 0): number {
  let longest = atLeast;
  for (const array of arrays) if (array.length > longest) longest = array.length;
  return longest;
}

/**
 * Each value's share of the sum of the positive values (a negative value or null has none), or null
 * when no value is positive. Values are divided by the largest before they are added, so 1e308 + 1e308
 * does not overflow to a sum of Infinity and shares of 0.
 */
export function positiveShares(values: ReadonlyArray<number | null>): ((value: number | null) => number) | null {
  let largest = 0;
  for (const value of values) if (value !== null && value > largest) largest = value;
  if (largest === 0) return null;
  let total = 0;
  for (const value of values) if (value !== null && value > 0) total += value / largest;
  return (value) => (value !== null && value > 0 ? value / largest / total : 0);
}
