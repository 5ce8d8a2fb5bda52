import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8Offset } from './utf8.js';

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('firstInvalidUtf8Offset', () => {
  it('points at the start of the first sequence that is not UTF-8', () => {
    expect(firstInvalidUtf8Offset(Buffer.from('Café 😀 €'))).toBe(-1);
    expect(firstInvalidUtf8Offset(bytes(0x43, 0x61, 0x66, 0xe9))).toBe(3); // Latin-1 é
    expect(firstInvalidUtf8Offset(bytes(0x41, 0xc0, 0x80))).toBe(1); // overlong NUL
    expect(firstInvalidUtf8Offset(bytes(0xed, 0xa0, 0x80))).toBe(0); // a surrogate
    expect(firstInvalidUtf8Offset(bytes(0xf4, 0x90, 0x80, 0x80))).toBe(0); // past U+10FFFF
    expect(firstInvalidUtf8Offset(bytes(0x41, 0x42, 0xe2, 0x82))).toBe(2); // cut short
    expect(firstInvalidUtf8Offset(bytes(0x80))).toBe(0); // a lone continuation byte
  });

  it('agrees with Node on random bytes: valid exactly when Node says so, and valid up to the offset', () => {
    for (let i = 0; i < 2000; i += 1) {
      const sample = randomBytes(1 + (i % 12));
      const offset = firstInvalidUtf8Offset(sample);
      expect(offset === -1).toBe(isUtf8(sample));
      if (offset !== -1) expect(isUtf8(sample.subarray(0, offset))).toBe(true);
    }
  });
});
