/** RFC 6901: `~` and `/` inside a key are escaped so a key like `a/b` stays one segment. */
export function jsonPointer(...segments: ReadonlyArray<string | number>): string {
  return segments.map((segment) => '/' + String(segment).replaceAll('~', '~0').replaceAll('/', '~1')).join('');
}
