/**
 * A JSON request body, from its bytes. Invalid UTF-8 is refused (decoding would replace it with U+FFFD
 * and store something the client never sent); a leading byte order mark is ignored, as RFC 8259 allows;
 * `__proto__` and `constructor.prototype` keys are refused, with where they are, because merging such an
 * object into another one changes the prototype of every object. Used by the API's JSON body parser and
 * by threads that parse large documents away from the request thread.
 */
import { isUtf8 } from 'node:buffer';
import sjson from 'secure-json-parse';
import { MAX_ISSUES, type Issue } from './errors.js';
import { escapePointerToken } from './json-pointer.js';
import { locateJsonSyntaxError } from './json-syntax.js';

export type JsonDocument =
  | { ok: true; value: unknown; text: string }
  | { ok: false; message: string }
  /** Valid JSON, but with a key that is refused; `path` is the JSON pointer to it. */
  | { ok: false; message: string; forbiddenKey: { path: string; message: string } }
  /** Valid JSON, but with strings (or keys) holding lone UTF-16 surrogates, by JSON pointer. */
  | { ok: false; message: string; loneSurrogates: Issue[] };

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/** The bytes without a leading UTF-8 byte order mark: what is parsed, and what is stored. */
export function withoutByteOrderMark(bytes: Buffer): Buffer {
  return bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2] ? bytes.subarray(3) : bytes;
}

export function parseJsonBytes(input: Uint8Array): JsonDocument {
  const bytes = withoutByteOrderMark(Buffer.from(input.buffer, input.byteOffset, input.byteLength));
  if (bytes.length === 0) return { ok: false, message: 'The request body is empty; send a JSON document.' };
  if (!isUtf8(bytes)) return { ok: false, message: 'The request body is not valid UTF-8; encode the JSON document as UTF-8.' };
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = mayHoldForbiddenKey(text) ? (sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' }) as unknown) : (JSON.parse(text) as unknown);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (/forbidden (?:prototype|constructor) property/.test(reason)) {
      const forbiddenKey = findForbiddenKey(JSON.parse(text) as unknown);
      if (forbiddenKey) return { ok: false, message: `The request body is refused at ${forbiddenKey.path}: ${forbiddenKey.message}`, forbiddenKey };
    }
    const where = locateJsonSyntaxError(text);
    if (where) return { ok: false, message: `The request body is not valid JSON: line ${where.line}, column ${where.column}: ${where.problem}.` };
    return { ok: false, message: `The request body is not valid JSON: ${reason}.` };
  }
  // UTF-8 cannot carry a lone surrogate, but a \ud800 escape can: refused here, for every JSON body.
  const loneSurrogates = LONE_SURROGATE_ESCAPE.test(text) ? loneSurrogateIssues(value, MAX_ISSUES) : [];
  const first = loneSurrogates[0];
  if (first) return { ok: false, message: `The request body is refused at ${first.path || '(body)'}: ${first.message}`, loneSurrogates };
  return { ok: true, value, text };
}

/** A `\uD800`–`\uDFFF` escape: the only way a lone surrogate reaches a parsed string. */
const LONE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * False when the text cannot spell a `__proto__` or `constructor` key, not even with escapes: then the
 * plain parser is enough. secure-json-parse's own search (regular expressions for every escaped
 * spelling) costs a tenth of parsing a typical document.
 */
function mayHoldForbiddenKey(text: string): boolean {
  return text.includes('\\u') || text.includes('__proto__') || text.includes('constructor');
}

/**
 * The first `__proto__` key, or `constructor` key holding a `prototype`, in document order. JSON.parse
 * itself makes such keys plain own properties, so walking the parsed value is safe.
 */
function findForbiddenKey(root: unknown): { path: string; message: string } | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string };
    if (value === null || typeof value !== 'object') continue;
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
    for (const [key, child] of entries) {
      const childPath = `${path}/${escapePointerToken(key)}`;
      if (!Array.isArray(value) && key === '__proto__') {
        return { path: childPath, message: 'the key "__proto__" is not accepted, because JavaScript clients that merge this object would change the prototype of every object; rename the key.' };
      }
      if (!Array.isArray(value) && key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) {
        return { path: `${childPath}/prototype`, message: 'a "constructor" object with a "prototype" key is not accepted, because JavaScript clients that merge it would change the prototype of every object; rename one of the keys.' };
      }
    }
    // Reversed so that the first key in the document is found first.
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [key, child] = entries[index] as readonly [string, unknown];
      stack.push({ value: child, path: `${path}/${escapePointerToken(key)}` });
    }
  }
  return undefined;
}

const NUL_MESSAGE = 'must not contain the NUL character (U+0000, \\u0000 in JSON); remove it.';

/** Every string (or key) holding U+0000, by JSON pointer, in document order; stops after `limit`. */
export function nulCharacterIssues(root: unknown, limit: number): Issue[] {
  return stringIssues(root, limit, (text) => text.includes('\u0000'), NUL_MESSAGE);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATE_MESSAGE =
  'must not contain a lone UTF-16 surrogate (a \\ud800 to \\udfff escape that is not half of a pair), which is no character and which SQLite and PostgreSQL would store differently; send the whole character (both escapes of its pair, or the character itself in UTF-8) or remove it.';

/** Every string (or key) holding a lone UTF-16 surrogate, by JSON pointer, in document order; stops after `limit`. */
export function loneSurrogateIssues(root: unknown, limit: number): Issue[] {
  return stringIssues(root, limit, (text) => LONE_SURROGATE.test(text), LONE_SURROGATE_MESSAGE);
}

/**
 * Every string (or key) for which `refused` holds, by JSON pointer, in document order; stops after `limit`.
 * Iterative, as a document may nest far deeper than the call stack; each object is visited once, so
 * a cyclic object (which JSON cannot make, but a caller can) ends too.
 */
function stringIssues(root: unknown, limit: number, refused: (text: string) => boolean, message: string): Issue[] {
  const found: Issue[] = [];
  const seen = new Set<object>();
  const stack: Array<{ value: unknown; path: string; isKey?: true }> = [{ value: root, path: '' }];
  while (stack.length > 0 && found.length < limit) {
    const { value, path, isKey } = stack.pop() as { value: unknown; path: string; isKey?: true };
    if (typeof value === 'string') {
      if (refused(value)) found.push({ path, message: isKey ? `this key ${message}` : message });
      continue;
    }
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [key, child] = entries[index] as readonly [string, unknown];
      const childPath = `${path}/${escapePointerToken(key)}`;
      // Pushed after the value so that, popped first, the key is reported before anything inside it.
      stack.push({ value: child, path: childPath });
      if (!Array.isArray(value) && refused(key)) stack.push({ value: key, path: childPath, isKey: true });
    }
  }
  return found;
}
