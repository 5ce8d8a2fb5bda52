/**
 * git-receive-pack behind svc's push rules, for hosted repositories. svc reads the push's command list
 * itself (receive-commands.ts) before git sees a byte, and refuses the whole push when a command breaks
 * the rules (push-rules.ts) or the body is over SVC_MAX_PUSH_BYTES, answering in git's own report-status so
 * the pusher reads `! [remote rejected] main (<reason>)` and `remote:` advice. Only an accepted push
 * reaches git, and git itself still checks every object (receive.fsckObjects) and the pack size
 * (receive.maxInputSize).
 *
 * Why not a pre-receive hook: a hook is a script git runs from the repository, so the rules would live in
 * sh, be copied into every repository (and go stale in old ones), and fail open wherever the data
 * directory cannot execute files; its refusal also reads only "pre-receive hook declined". The command
 * list is a small, stable part of the protocol, and reading it in-process refuses a bad push before any of
 * its pack is stored. (The repositories keep a small pre-receive hook for the default branch as a
 * second line; see repository.ts.)
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { defaultBranchAdvice, pushRefusal, type PushRules } from './push-rules.js';
import { parseCommandSection, refusalResponse, type CommandSection, type PushRefusal } from '../git/receive-commands.js';
import { startGit } from '../git/run-git.js';

export interface ReceiveGuard {
  rules: PushRules;
  /** The most bytes one push request may carry (SVC_MAX_PUSH_BYTES). */
  maxPushBytes: number;
}

export interface GuardedReceiveOptions extends ReceiveGuard {
  /** The git-receive-pack command line (subcommand, options, repository), as smart-http.ts builds it. */
  gitArgs: readonly string[];
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** The request's Content-Length, when it sent one. */
  declaredLength: number | null;
  /** Headers of a 200 answer (result content type, no-cache). */
  headers: Readonly<Record<string, string>>;
}

/** Ten thousand ref updates fit in 1 MiB; a command list longer than that is not a push svc needs to read. */
const MAX_COMMAND_SECTION_BYTES = 1024 * 1024;

export async function runGuardedReceive(body: Readable, response: ServerResponse, options: GuardedReceiveOptions): Promise<void> {
  const read = await readCommandSection(body, Math.min(MAX_COMMAND_SECTION_BYTES, options.maxPushBytes));
  if (read.problem !== null) {
    body.resume();
    response.writeHead(read.tooLarge ? 413 : 400, { ...options.headers, 'Content-Type': 'text/plain; charset=utf-8' });
    response.end(`${read.problem}\n`);
    return;
  }
  const { section, buffered } = read;
  response.writeHead(200, options.headers);

  const refusal =
    options.declaredLength !== null && options.declaredLength > options.maxPushBytes
      ? tooLarge(section, options.declaredLength, options.maxPushBytes)
      : ruleRefusal(section, options.rules);
  if (refusal) {
    body.resume();
    response.end(refusalResponse(section, refusal));
    return;
  }

  const git = startGit(options.gitArgs, {
    env: options.env,
    config: { 'receive.fsckObjects': 'true', 'receive.maxInputSize': String(options.maxPushBytes) },
    timeoutMs: options.timeoutMs,
  });
  const stdin = git.stdin;
  if (!stdin) throw new Error('git was started without a stdin pipe');
  const stopGit = (): void => git.kill();
  response.once('close', stopGit);

  let received = buffered.length;
  let overLimit = false;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > options.maxPushBytes) {
        overLimit = true;
        done(new Error('push over the size limit'));
      } else {
        done(null, chunk);
      }
    },
  });
  counter.once('error', () => {
    // git gets a truncated pack, fails to unpack it and removes its quarantine itself (killing it could
    // leave the quarantine directory behind); the rest of the body is read and dropped, so the client
    // gets to read the refusal.
    body.unpipe(counter);
    body.resume();
    stdin.end();
  });
  body.once('error', stopGit);

  let wroteAnswer = false;
  git.stdout.on('data', (chunk: Buffer) => {
    // Once over the limit, git's report of the truncated pack is replaced by svc's.
    if (overLimit && !wroteAnswer) return;
    wroteAnswer = true;
    response.write(chunk);
  });
  const stdoutDone = new Promise<void>((resolve) => git.stdout.once('close', resolve));

  stdin.write(buffered);
  counter.pipe(stdin);
  // A request read to its end together with its command list has nothing left to pipe.
  if (body.readableEnded) counter.end();
  else body.pipe(counter);
  try {
    const outcome = await Promise.all([git.finished, stdoutDone]).then(
      () => null,
      (error: unknown) => error,
    );
    if (overLimit) {
      // git answers only once it has read the whole request, so nothing of its answer went out yet.
      if (wroteAnswer) response.destroy();
      else response.end(refusalResponse(section, tooLarge(section, received, options.maxPushBytes, 'at least ')));
      return;
    }
    if (outcome !== null) throw outcome;
    response.end();
  } finally {
    response.off('close', stopGit);
    body.off('error', stopGit);
  }
}

type SectionRead = { problem: null; section: CommandSection; buffered: Buffer } | { problem: string; tooLarge: boolean };

/** Read the body until its command list is complete; the bytes read so far come back to be handed to git. */
function readCommandSection(body: Readable, maxBytes: number): Promise<SectionRead> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (result: SectionRead | Error): void => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', finish);
      body.pause();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      length += chunk.length;
      const buffered = Buffer.concat(chunks, length);
      const parsed = parseCommandSection(buffered);
      if (parsed.status === 'complete') return finish({ problem: null, section: parsed.section, buffered });
      if (parsed.status === 'malformed') return finish({ problem: `svc could not read this push: ${parsed.reason}.`, tooLarge: false });
      if (length > maxBytes) {
        finish({ problem: `This push updates too many refs at once (its command list is over ${maxBytes} bytes); push fewer branches at a time.`, tooLarge: true });
      }
    };
    const onEnd = (): void => finish({ problem: 'svc could not read this push: the request ended before its list of ref updates did.', tooLarge: false });
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', finish);
  });
}

function ruleRefusal(section: CommandSection, rules: PushRules): PushRefusal | null {
  const reasons = new Map<string, string>();
  let refusesDefaultBranch = false;
  for (const command of section.commands) {
    const reason = pushRefusal(command, rules);
    if (reason === null) continue;
    reasons.set(command.ref, reason);
    if (command.ref === `refs/heads/${rules.defaultBranch}`) refusesDefaultBranch = true;
  }
  if (reasons.size === 0) return null;
  // All or nothing: landing part of a push would leave the pusher's branches in a state nobody asked for.
  for (const command of section.commands) {
    if (!reasons.has(command.ref)) reasons.set(command.ref, 'not pushed, because svc refused another ref of this push');
  }
  return { unpackError: null, reasons, messages: refusesDefaultBranch ? defaultBranchAdvice(rules.defaultBranch) : [] };
}

function tooLarge(section: CommandSection, bytes: number, maxBytes: number, qualifier = ''): PushRefusal {
  const reason = `push too large: ${qualifier}${formatBytes(bytes)}, over this server's limit of ${formatBytes(maxBytes)} (SVC_MAX_PUSH_BYTES)`;
  const reasons = new Map(section.commands.map((command) => [command.ref, reason] as const));
  return {
    unpackError: reason,
    reasons,
    messages: [
      `svc: This push is ${qualifier}${formatBytes(bytes)}; the server accepts at most ${formatBytes(maxBytes)} per push. Nothing was stored.`,
      'svc: Push fewer commits at a time, keep large generated or binary files out of the repository, or ask the administrator to raise SVC_MAX_PUSH_BYTES.',
    ],
  };
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GiB`;
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}
