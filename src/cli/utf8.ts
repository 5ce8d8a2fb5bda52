import { isUtf8 } from 'node:buffer';

/** The shortest valid continuation range after each lead byte (RFC 3629 §4): no overlongs, surrogates or code points past U+10FFFF. */
function secondByteRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

function sequenceLength(lead: number): number {
  if (lead <= 0x7f) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** The offset of the first byte of the first sequence that is not UTF-8, or -1 when all of it is. */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  let offset = 0;
  while (offset < bytes.length) {
    const lead = bytes[offset] ?? 0;
    const length = sequenceLength(lead);
    if (length === 0 || offset + length > bytes.length) return offset;
    for (let i = 1; i < length; i += 1) {
      const [low, high] = i === 1 ? secondByteRange(lead) : [0x80, 0xbf];
      const byte = bytes[offset + i] ?? 0;
      if (byte < low || byte > high) return offset;
    }
    offset += length;
  }
  return -1;
}
