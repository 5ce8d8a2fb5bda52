/**
 * A session's conversation: the runtime's messages (opencode: `{info: {id, role}, parts}`), read from the
 * sandbox while it runs, and kept by svc for when it does not. The runtime's copy lives in the sandbox, so
 * a stopped or deleted session would otherwise show nothing of what its agent did: svc captures the
 * conversation just before it stops a sandbox (stop, the idle sweep, delete) and keeps it bounded.
 */
import type { Services } from '../context.js';
import { nowIso } from '../db/values.js';
import { daemonRequest } from './daemon-client.js';
import { failureKept, runtimeErrorText, type RuntimeMessageInfo } from '../shared/runtime-error.js';
import type { SessionRow } from './session-row.js';

export interface RuntimePart {
  id?: string;
  messageID?: string;
  type?: string;
  text?: string;
  tool?: string;
  state?: { status?: string; input?: unknown; output?: unknown; error?: unknown; title?: string };
}

export interface RuntimeMessage {
  info?: RuntimeMessageInfo;
  parts?: RuntimePart[];
}

/** Where the conversation shown came from: the running sandbox, svc's copy, or (never captured) only what people said. */
export type ConversationSource = 'runtime' | 'stored' | 'prompts';

export interface Conversation {
  source: ConversationSource;
  messages: RuntimeMessage[];
  /** When svc's copy was taken (source `stored`). */
  captured_at: string | null;
  /** Oldest messages left out of svc's copy to keep it within its bound. */
  omitted_messages: number;
}

/** How long svc waits for the runtime's messages (a page, or a stop that captures them first). */
const RUNTIME_TIMEOUT_MS = 10_000;
/** A text, a tool's input or its result longer than this is cut in svc's copy; the sandbox keeps the rest. */
export const MAX_STORED_TEXT = 20_000;
/** svc's copy of one conversation stays under this many bytes of JSON; the oldest messages go first. */
export const MAX_STORED_BYTES = 2 * 1024 * 1024;
/** Part types a reader is shown; the runtime's step markers, snapshots and patches are not kept. */
const SHOWN_PART_TYPES = new Set(['text', 'reasoning', 'tool']);

function clipText(text: string): string {
  return text.length > MAX_STORED_TEXT ? `${text.slice(0, MAX_STORED_TEXT)}\n… ${text.length - MAX_STORED_TEXT} more characters` : text;
}

function clipValue(value: unknown): unknown {
  if (value === undefined || value === null) return value;
  if (typeof value === 'string') return clipText(value);
  const json = JSON.stringify(value);
  return json.length > MAX_STORED_TEXT ? clipText(json) : value;
}

function keptPart(part: RuntimePart): RuntimePart {
  const kept: RuntimePart = { id: part.id, type: part.type };
  if (part.text !== undefined) kept.text = clipText(part.text);
  if (part.tool !== undefined) kept.tool = part.tool;
  if (part.state) {
    const { status, input, output, error, title } = part.state;
    kept.state = { status, title, input: clipValue(input), output: clipValue(output), error: clipValue(error) };
  }
  return kept;
}

/** Who spoke and, for a reply that failed, why and with which model (runtime-error.ts). */
function keptInfo(info: RuntimeMessageInfo | undefined): RuntimeMessageInfo {
  const kept: RuntimeMessageInfo = { id: info?.id, role: info?.role };
  if (info?.error !== undefined) Object.assign(kept, { error: clipValue(failureKept(info.error)), providerID: info.providerID, modelID: info.modelID });
  return kept;
}

/** Why a reply failed, as a sentence for people (the runtime writes no part for it); null when it did not fail. */
export function replyFailure(message: RuntimeMessage): string | null {
  return runtimeErrorText(message.info);
}

/** The runtime's answer trimmed to what a reader sees and cut to svc's bound, oldest messages first. */
export function boundedConversation(messages: readonly RuntimeMessage[]): { json: string; omitted: number } {
  const kept = messages.map((message) => ({ info: keptInfo(message.info), parts: (message.parts ?? []).filter((part) => SHOWN_PART_TYPES.has(part.type ?? '')).map(keptPart) }));
  const sizes = kept.map((message) => Buffer.byteLength(JSON.stringify(message)) + 1);
  let total = sizes.reduce((sum, size) => sum + size, 2);
  let first = 0;
  while (total > MAX_STORED_BYTES && first < kept.length) total -= sizes[first++] ?? 0;
  return { json: JSON.stringify(kept.slice(first)), omitted: first };
}

/** The conversation from the running runtime, or null when it cannot be read now (sandbox not running). */
export async function readRuntimeConversation(services: Services, session: SessionRow, userId?: string): Promise<RuntimeMessage[] | null> {
  if (session.status !== 'running' || !session.runtime_session_id || !session.daemon_url) return null;
  try {
    const answer = await daemonRequest(services, session, `/session/${encodeURIComponent(session.runtime_session_id)}/message`, { signal: AbortSignal.timeout(RUNTIME_TIMEOUT_MS) }, userId);
    if (!answer.ok) return null;
    const body: unknown = await answer.json();
    return Array.isArray(body) ? (body as RuntimeMessage[]) : null;
  } catch {
    return null;
  }
}

/**
 * Reads the conversation from the sandbox and keeps svc's copy of it, replacing the last. Called with the
 * session as it was while running (its daemon address), before the sandbox is stopped; a sandbox that does
 * not answer leaves the last copy in place.
 */
export async function captureConversation(services: Services, session: SessionRow): Promise<void> {
  const messages = await readRuntimeConversation(services, { ...session, status: 'running' });
  if (messages === null) return;
  const { json, omitted } = boundedConversation(messages);
  const row = { session_id: session.id, messages: json, omitted_messages: omitted, captured_at: nowIso() };
  await services.db
    .insertInto('session_conversations')
    .values(row)
    .onConflict((conflict) => conflict.column('session_id').doUpdateSet({ messages: json, omitted_messages: omitted, captured_at: row.captured_at }))
    .execute();
}

/** User turns svc holds itself: the first prompt and the messages people and triggers sent (only those after `since`, when given). */
async function sentTurns(services: Services, session: SessionRow, since: string | null): Promise<RuntimeMessage[]> {
  let query = services.db.selectFrom('session_messages').select(['id', 'text']).where('session_id', '=', session.id);
  if (since !== null) query = query.where('created_at', '>', since);
  const rows = await query.orderBy('seq').execute();
  const texts = [...(since === null && session.initial_prompt ? [{ id: 'initial', text: session.initial_prompt }] : []), ...rows];
  return texts.map((row) => ({ info: { id: row.id, role: 'user' }, parts: [{ id: `svc-${row.id}`, type: 'text', text: row.text }] }));
}

/**
 * The whole conversation as a reader should see it now: from the runtime while it runs, else svc's copy
 * followed by messages sent since that the agent has not taken yet, else what people told the agent.
 */
export async function sessionConversation(services: Services, session: SessionRow, userId?: string): Promise<Conversation> {
  const live = await readRuntimeConversation(services, session, userId);
  if (live !== null) return { source: 'runtime', messages: live, captured_at: null, omitted_messages: 0 };
  const stored = await services.db.selectFrom('session_conversations').selectAll().where('session_id', '=', session.id).executeTakeFirst();
  if (!stored) return { source: 'prompts', messages: await sentTurns(services, session, null), captured_at: null, omitted_messages: 0 };
  const messages = JSON.parse(stored.messages) as RuntimeMessage[];
  return { source: 'stored', messages: [...messages, ...(await sentTurns(services, session, stored.captured_at))], captured_at: stored.captured_at, omitted_messages: Number(stored.omitted_messages) };
}
