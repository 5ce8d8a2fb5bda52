/** RFC 6901 JSON pointers, as used in every `issues` entry. */

/** `~` and `/` inside a key are escaped so a key like `a/b` stays one segment. */
export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

export function jsonPointer(...segments: ReadonlyArray<string | number>): string {
  return segments.map((segment) => '/' + escapePointerToken(String(segment))).join('');
}
