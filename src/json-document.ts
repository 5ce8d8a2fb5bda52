/**
 * A JSON request body, from its bytes. Invalid UTF-8 is refused (decoding would replace it with U+FFFD
 * and store something the client never sent), and `__proto__` / `constructor.prototype` keys are
 * refused as prototype poisoning. Used by the API's JSON body parser and by threads that parse large
 * documents away from the request thread.
 */
import { isUtf8 } from 'node:buffer';
import sjson from 'secure-json-parse';

export type JsonDocument = { ok: true; value: unknown; text: string } | { ok: false; message: string };

export function parseJsonBytes(bytes: Uint8Array): JsonDocument {
  if (bytes.length === 0) return { ok: false, message: 'The request body is empty; send a JSON document.' };
  if (!isUtf8(bytes)) return { ok: false, message: 'The request body is not valid UTF-8; encode the JSON document as UTF-8.' };
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  try {
    return { ok: true, value: sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' }) as unknown, text };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `The request body is not valid JSON: ${reason}.` };
  }
}
