/**
 * The git push request as git-receive-pack reads it (gitprotocol-pack(5), "Reference Update Request"), and
 * the report-status answer it gives, for svc to decide on a push before any of it reaches git:
 *
 *   *PKT-LINE("shallow" SP obj-id)
 *   PKT-LINE(old-id SP new-id SP refname NUL capabilities) *PKT-LINE(old-id SP new-id SP refname)
 *   flush-pkt
 *   [push options, then a flush-pkt]  [the pack]
 *
 * Parsing is deliberately strict and fails closed: anything git would accept that this reader does not
 * understand (a signed push certificate, a malformed line) is refused rather than passed on, so the
 * commands svc checks are exactly the commands git would run.
 */

export interface RefCommand {
  oldId: string;
  newId: string;
  /** The full ref name, e.g. `refs/heads/main`. */
  ref: string;
}

export interface CommandSection {
  commands: RefCommand[];
  /** The capabilities the client asked for (after the NUL of a command line), e.g. `report-status`, `side-band-64k`. */
  capabilities: Set<string>;
  /** Bytes of the request the section takes, the closing flush-pkt included. */
  length: number;
}

export type CommandSectionParse = { status: 'complete'; section: CommandSection } | { status: 'incomplete' } | { status: 'malformed'; reason: string };

const COMMAND = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (.+)$/s;
const SHALLOW = /^shallow ([0-9a-f]{40}|[0-9a-f]{64})$/;
const LENGTH = /^[0-9a-fA-F]{4}$/;

/** The all-zero object id of a created (old) or deleted (new) ref. */
export function isZeroId(id: string): boolean {
  return /^0+$/.test(id);
}

/** Parse the command list at the start of `request` (all the bytes received so far). */
export function parseCommandSection(request: Buffer): CommandSectionParse {
  const commands: RefCommand[] = [];
  const capabilities = new Set<string>();
  let position = 0;
  while (position + 4 <= request.length) {
    const header = request.toString('latin1', position, position + 4);
    if (!LENGTH.test(header)) return { status: 'malformed', reason: `bad pkt-line length ${JSON.stringify(header)}` };
    const length = parseInt(header, 16);
    if (length === 0) return { status: 'complete', section: { commands, capabilities, length: position + 4 } };
    if (length <= 4) return { status: 'malformed', reason: `unexpected pkt-line ${header} in the command list` };
    if (position + length > request.length) return { status: 'incomplete' };
    let payload = request.toString('utf8', position + 4, position + length);
    position += length;
    // git chomps one newline off the whole packet before splitting off the capabilities.
    if (payload.endsWith('\n')) payload = payload.slice(0, -1);
    if (SHALLOW.test(payload)) continue;
    const nul = payload.indexOf('\0');
    const line = nul === -1 ? payload : payload.slice(0, nul);
    if (nul !== -1) for (const capability of payload.slice(nul + 1).split(' ')) if (capability) capabilities.add(capability);
    if (line === 'push-cert') return { status: 'malformed', reason: 'signed pushes (push certificates) are not supported' };
    const command = COMMAND.exec(line);
    if (!command) return { status: 'malformed', reason: `expected "<old> <new> <ref>", got ${JSON.stringify(line.slice(0, 120))}` };
    commands.push({ oldId: command[1] ?? '', newId: command[2] ?? '', ref: command[3] ?? '' });
  }
  return { status: 'incomplete' };
}

/** A pkt-line: four hex digits giving the length (including themselves), then the payload. */
export function pktLine(payload: string | Buffer): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0'), 'ascii'), body]);
}

export const FLUSH_PKT = Buffer.from('0000', 'ascii');

/** Largest packet payload: 65520 in all with side-band-64k, 1000 with the old side-band (minus header and band byte). */
function sidebandPayloadLimit(capabilities: ReadonlySet<string>): number {
  return capabilities.has('side-band-64k') ? 65520 - 5 : 1000 - 5;
}

function sideband(band: 1 | 2 | 3, data: Buffer, capabilities: ReadonlySet<string>): Buffer[] {
  const limit = sidebandPayloadLimit(capabilities);
  const packets: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += limit) {
    packets.push(pktLine(Buffer.concat([Buffer.from([band]), data.subarray(offset, offset + limit)])));
  }
  return packets;
}

export interface PushRefusal {
  /** The `unpack` line: null for "unpack ok" (nothing was wrong with the pack; svc did not need to read it). */
  unpackError: string | null;
  /** The reason given for each command's ref, shown by git as `! [remote rejected] <ref> (<reason>)`. */
  reasons: ReadonlyMap<string, string>;
  /** Lines git shows as `remote: …` before its ref summary (dropped for a client without side-band). */
  messages: readonly string[];
}

/**
 * The answer git-receive-pack would give had it refused every command itself: `remote:` messages on band 2,
 * then the report-status (`unpack …`, one `ng <ref> <reason>` per command) on band 1 when the client asked
 * for side-band, or bare otherwise. A client that did not ask for report-status gets the first reason as a
 * band-3 error (git prints it and fails), or nothing it could show.
 */
export function refusalResponse(section: CommandSection, refusal: PushRefusal): Buffer {
  const { capabilities } = section;
  const useSideband = capabilities.has('side-band-64k') || capabilities.has('side-band');
  const reports = capabilities.has('report-status') || capabilities.has('report-status-v2');
  const parts: Buffer[] = [];
  if (useSideband) {
    for (const message of refusal.messages) parts.push(...sideband(2, Buffer.from(`${message}\n`, 'utf8'), capabilities));
  }
  if (reports) {
    const report = [pktLine(`unpack ${refusal.unpackError ?? 'ok'}\n`)];
    for (const command of section.commands) {
      report.push(pktLine(`ng ${command.ref} ${oneLine(refusal.reasons.get(command.ref) ?? 'refused')}\n`));
    }
    report.push(FLUSH_PKT);
    const body = Buffer.concat(report);
    parts.push(...(useSideband ? sideband(1, body, capabilities) : [body]));
  } else if (useSideband) {
    const first = refusal.reasons.values().next().value ?? refusal.unpackError ?? 'push refused';
    parts.push(...sideband(3, Buffer.from(`${oneLine(first)}\n`, 'utf8'), capabilities));
  }
  if (useSideband) parts.push(FLUSH_PKT);
  return Buffer.concat(parts);
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}
