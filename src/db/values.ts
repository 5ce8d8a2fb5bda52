/** Normalises values that the two dialects return differently. */

export function readBool(value: boolean | number | null | undefined): boolean {
  return value === true || value === 1;
}

export function readJson<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  if (typeof value === 'string') return JSON.parse(value) as T;
  return value as T;
}

export function nowIso(): string {
  return new Date().toISOString();
}
