/**
 * `svc session logs <id> [--follow]`: the agent's conversation, readably: each message's text, its tool
 * calls with their input and the result, read from the runtime through svc (or, while the sandbox is
 * stopped or after it was deleted, svc's copy taken when it stopped). `--follow` then prints what
 * happens live from the session's event stream (status changes, each part once it is complete) until
 * interrupted.
 */
import { runtimeErrorText, type RuntimeMessageInfo } from '../../shared/runtime-error.js';
import { openStream } from '../api-client.js';
import type { CliDeps } from '../deps.js';
import { bold, colour } from '../output.js';
import { resolveSessionId, sessionClient, sessionPath, type Session } from './session-api.js';

export interface SessionLogsOptions {
  follow?: boolean;
  project?: string;
}

interface Part {
  id?: string;
  type?: string;
  text?: string;
  tool?: string;
  state?: { status?: string; input?: unknown; output?: string; error?: string; title?: string };
}

interface RuntimeMessage {
  info?: RuntimeMessageInfo;
  parts?: Part[];
}

const MAX_OUTPUT_LINES = 20;

function indent(text: string): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  const shown = lines.slice(0, MAX_OUTPUT_LINES).map((line) => `    ${line}`);
  if (lines.length > MAX_OUTPUT_LINES) shown.push(`    … ${lines.length - MAX_OUTPUT_LINES} more lines`);
  return shown.join('\n');
}

/** One part as lines of text, or null for parts a reader does not need (step markers, snapshots). */
export function renderPart(deps: Pick<CliDeps, 'isTTY' | 'env'>, role: string, part: Part): string | null {
  if (part.type === 'text' && part.text?.trim()) return `${bold(deps, role === 'user' ? 'you' : 'agent')}: ${part.text.trim()}`;
  if (part.type === 'reasoning' && part.text?.trim()) return colour(deps, 'dim', `thinking: ${part.text.trim()}`);
  if (part.type === 'tool') {
    const state = part.state ?? {};
    const input = state.input === undefined ? '' : ` ${JSON.stringify(state.input)}`;
    const head = colour(deps, 'cyan', `$ ${part.tool ?? 'tool'}${input}`);
    if (state.status === 'completed' && state.output !== undefined) return `${head}\n${indent(state.output)}`;
    if (state.status === 'error') return `${head}\n${colour(deps, 'red', indent(state.error ?? 'failed'))}`;
    return `${head} (${state.status ?? 'pending'})`;
  }
  return null;
}

/** A reply that failed, as the line printed after its parts; null when it did not fail. */
export function renderFailure(deps: Pick<CliDeps, 'isTTY' | 'env'>, info: RuntimeMessageInfo | undefined): string | null {
  const text = runtimeErrorText(info);
  return text === null ? null : colour(deps, 'red', `agent error: ${text}`);
}

/** Why the conversation printed is not read live from the sandbox. */
function storedNote(session: Session, source: string, capturedAt: string | null, omitted: number): string {
  const state = session.sandbox.state === 'archived' ? `Session ${session.id} was deleted` : `Session ${session.id} is ${session.status}`;
  if (source !== 'stored') return `${state} and its agent's replies were never captured; only what people told it is shown.`;
  const left = omitted > 0 ? ` (the oldest ${omitted} messages left out)` : '';
  return `${state}; its conversation as it stood when the sandbox stopped at ${capturedAt ?? 'an unknown time'}${left}.`;
}

export async function runSessionLogs(id: string, options: SessionLogsOptions, deps: CliDeps): Promise<void> {
  const found = await sessionClient(options, deps);
  const { client, credentials, base } = found;
  const path = sessionPath(base, await resolveSessionId(found, id));
  const { body } = await client.request<{ session: Session }>('GET', path);
  const session = body.session;
  const printed = new Set<string>();
  // A failed reply is printed once, whether read with the conversation or from the live stream.
  const printFailure = (info: RuntimeMessageInfo | undefined) => {
    const key = `error ${info?.id ?? ''}`;
    const failure = printed.has(key) ? null : renderFailure(deps, info);
    if (failure === null) return;
    deps.stdout.write(`${failure}\n`);
    printed.add(key);
  };
  const { body: conversation } = await client.request<{ source: string; captured_at: string | null; omitted_messages: number; messages: RuntimeMessage[] }>('GET', `${path}/conversation`);
  if (conversation.source !== 'runtime') deps.stderr.write(`${storedNote(session, conversation.source, conversation.captured_at, conversation.omitted_messages)}\n`);
  for (const message of conversation.messages) {
    for (const part of message.parts ?? []) {
      const text = renderPart(deps, message.info?.role ?? 'assistant', part);
      if (text) deps.stdout.write(`${text}\n`);
      if (part.id) printed.add(part.id);
    }
    printFailure(message.info);
  }
  if (!options.follow) return;
  const stream = await openStream(client, credentials, `${path}/events`);
  const decoder = new TextDecoder();
  let buffered = '';
  const roles = new Map<string, string>();
  for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) !== -1) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!data) continue;
      const payload = JSON.parse(data) as { status?: string; properties?: { info?: RuntimeMessageInfo; part?: Part & { messageID?: string } } };
      if (event === 'session.status' && payload.status) deps.stderr.write(colour(deps, 'dim', `[session ${payload.status}]`) + '\n');
      const info = event === 'message.updated' ? payload.properties?.info : undefined;
      if (info?.id) {
        roles.set(info.id, info.role ?? 'assistant');
        printFailure(info);
      }
      if (event === 'message.part.updated' && payload.properties?.part) {
        const part = payload.properties.part;
        const done = part.type !== 'tool' || part.state?.status === 'completed' || part.state?.status === 'error';
        const finished = part.type === 'text' ? Boolean((part as { time?: { end?: number } }).time?.end) : done;
        if (!finished || (part.id && printed.has(part.id))) continue;
        const text = renderPart(deps, roles.get(part.messageID ?? '') ?? 'assistant', part);
        if (text) deps.stdout.write(`${text}\n`);
        if (part.id) printed.add(part.id);
      }
    }
  }
}
