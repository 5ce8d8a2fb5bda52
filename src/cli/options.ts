import { InvalidArgumentError } from 'commander';

/** The largest dashboard version the API takes in a path or an If-Match header (nine digits). */
export const MAX_VERSION = 999_999_999;

/** A commander option parser for a whole number in [min, max]; anything else is a usage error (exit 2). */
export function parseIntegerOption(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value) || n < min || n > max) {
      throw new InvalidArgumentError(`${flag} must be an integer from ${min} to ${max}.`);
    }
    return n;
  };
}
