/**
 * The two string formats spec 1 uses. ajv-formats' `uri` is RFC 3986 as one regular expression whose
 * nested repetitions recurse per character, so a multi-megabyte URL overflowed the stack (a 500); its
 * `uuid` also takes a `urn:uuid:` prefix, which is not the bare identifier svc hands out.
 */
import formats from 'ajv-formats/dist/formats.js';

/** Past this length the full RFC 3986 grammar risks the stack; the linear check below is used instead. */
const FULL_GRAMMAR_MAX_LENGTH = 8192;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** RFC 3986's unreserved, reserved and `%` characters: one character class, which never recurses. */
const URI_CHARACTERS = /^[a-z0-9\-._~!$&'()*+,;=:@/?#[\]%]*$/i;
const BAD_PERCENT_ESCAPE = /%(?![0-9a-f]{2})/i;

const fullUri = formats.fullFormats.uri as (value: string) => boolean;

export function isUri(value: string): boolean {
  if (value.length <= FULL_GRAMMAR_MAX_LENGTH) return fullUri(value);
  return SCHEME.test(value) && URI_CHARACTERS.test(value) && !BAD_PERCENT_ESCAPE.test(value);
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
