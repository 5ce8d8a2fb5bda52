import { didYouMean } from './wording.js';

/** Past this many unknown keys in one mapping the file is not a manifest with typos; one summary says so. */
export const MAX_UNKNOWN_KEYS_REPORTED = 10;

export interface UnknownKeys {
  /** The first few unknown keys, each with " (did you mean …?)" or an empty hint. */
  reported: Array<{ key: string; hint: string }>;
  /** How many more there are beyond `reported`. */
  more: number;
}

export function findUnknownKeys(mapping: Record<string, unknown>, known: readonly string[]): UnknownKeys {
  const reported: UnknownKeys['reported'] = [];
  let more = 0;
  for (const key of Object.keys(mapping)) {
    if (known.includes(key)) continue;
    if (reported.length < MAX_UNKNOWN_KEYS_REPORTED) reported.push({ key, hint: didYouMean(key, known) });
    else more++;
  }
  return { reported, more };
}
