import { describe, expect, it } from 'vitest';
import { parseCommandSection, pktLine, refusalResponse } from './receive-commands.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const ZERO = '0'.repeat(40);

function request(...packets: Array<string | null>): Buffer {
  return Buffer.concat(packets.map((packet) => (packet === null ? Buffer.from('0000') : pktLine(packet))));
}

describe('the command list of a push', () => {
  it('reads commands, capabilities from any line and shallow lines, and where the list ends', () => {
    const body = request(`shallow ${A}`, `${A} ${B} refs/heads/main\0report-status side-band-64k agent=git/2.39\n`, `${ZERO} ${B} refs/heads/x\0atomic`, null);
    const parsed = parseCommandSection(Buffer.concat([body, Buffer.from('PACK…')]));
    expect(parsed).toEqual({
      status: 'complete',
      section: {
        commands: [
          { oldId: A, newId: B, ref: 'refs/heads/main' },
          { oldId: ZERO, newId: B, ref: 'refs/heads/x' },
        ],
        capabilities: new Set(['report-status', 'side-band-64k', 'agent=git/2.39', 'atomic']),
        length: body.length,
      },
    });
  });

  it('waits for more bytes until the flush-pkt arrives', () => {
    const body = request(`${A} ${B} refs/heads/main\n`, null);
    expect(parseCommandSection(body.subarray(0, 10))).toEqual({ status: 'incomplete' });
    expect(parseCommandSection(body.subarray(0, body.length - 2))).toEqual({ status: 'incomplete' });
    expect(parseCommandSection(body).status).toBe('complete');
  });

  it('fails closed on push certificates, malformed lines and special packets', () => {
    const malformed = [
      request('push-cert\0report-status\n', 'certificate version 0.1\n', 'push-cert-end\n', null),
      request(`${A} ${B}\n`, null),
      request(`${A.slice(1)} ${B} refs/heads/main\n`, null),
      Buffer.from('zzzz'),
      Buffer.from('0001'),
      Buffer.from('0004'),
    ];
    for (const body of malformed) expect(parseCommandSection(body).status, body.toString('latin1')).toBe('malformed');
  });

  it('answers a refusal in report-status, inside side-band when asked for', () => {
    const parsed = parseCommandSection(request(`${A} ${B} refs/heads/main\0report-status side-band-64k`, null));
    if (parsed.status !== 'complete') throw new Error('not parsed');
    const answer = refusalResponse(parsed.section, { unpackError: null, reasons: new Map([['refs/heads/main', 'no']]), messages: ['hello'] });
    const report = Buffer.concat([pktLine('unpack ok\n'), pktLine('ng refs/heads/main no\n'), Buffer.from('0000')]);
    expect(answer.toString('latin1')).toBe(
      Buffer.concat([pktLine(Buffer.from('\x02hello\n', 'latin1')), pktLine(Buffer.concat([Buffer.from([1]), report])), Buffer.from('0000')]).toString('latin1'),
    );

    const bare = parseCommandSection(request(`${A} ${B} refs/heads/main\0report-status`, null));
    if (bare.status !== 'complete') throw new Error('not parsed');
    expect(refusalResponse(bare.section, { unpackError: 'too big', reasons: new Map(), messages: ['dropped'] }).toString('latin1')).toBe(
      Buffer.concat([pktLine('unpack too big\n'), pktLine('ng refs/heads/main refused\n'), Buffer.from('0000')]).toString('latin1'),
    );
  });
});
