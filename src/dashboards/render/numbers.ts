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
