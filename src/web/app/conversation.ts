/**
 * The agent's conversation as HTML, from the runtime's messages (opencode: `{info: {id, role}, parts}`):
 * text, reasoning, tool calls with their input and result, and file edits as small diffs. The page's
 * script renders parts that arrive later the same way (see app-script.ts), keyed by the part's id.
 */
import { escapeAttr, escapeHtml } from '../../dashboards/render/escape.js';
import { replyFailure, type RuntimeMessage, type RuntimePart } from '../../sessions/session-conversation.js';

export type { RuntimeMessage, RuntimePart };

/** Tool results longer than this are cut; the full text stays in the sandbox. */
const MAX_OUTPUT_CHARACTERS = 20_000;

function clip(text: string): string {
  return text.length > MAX_OUTPUT_CHARACTERS ? `${text.slice(0, MAX_OUTPUT_CHARACTERS)}\n… ${text.length - MAX_OUTPUT_CHARACTERS} more characters` : text;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** An edit tool's input as removed and added lines; null when the input is not an edit. */
function editDiff(input: unknown): string | null {
  if (!input || typeof input !== 'object') return null;
  const fields = input as Record<string, unknown>;
  const path = typeof fields.filePath === 'string' ? fields.filePath : typeof fields.path === 'string' ? fields.path : null;
  const before = typeof fields.oldString === 'string' ? fields.oldString : null;
  const after = typeof fields.newString === 'string' ? fields.newString : typeof fields.content === 'string' ? fields.content : null;
  if (path === null || after === null) return null;
  const lines = [...(before === null ? [] : before.split('\n').map((line) => `<span class="dd">-${escapeHtml(line)}</span>`)), ...after.split('\n').map((line) => `<span class="da">+${escapeHtml(line)}</span>`)];
  return `<div class="edit"><div class="edit-path">${escapeHtml(path)}</div><pre class="edit-lines">${clip(lines.join('\n'))}</pre></div>`;
}

export function renderPart(part: RuntimePart, role: string): string {
  const id = part.id ? ` data-part="${escapeAttr(part.id)}"` : '';
  if ((part.type === 'text' || part.type === 'reasoning') && part.text?.trim()) {
    const who = role === 'user' ? 'You' : part.type === 'reasoning' ? 'Thinking' : 'Agent';
    return `<div class="turn turn-${role === 'user' ? 'user' : part.type === 'reasoning' ? 'thinking' : 'agent'}"${id}><div class="turn-who">${who}</div><div class="turn-text">${escapeHtml(part.text.trim())}</div></div>`;
  }
  if (part.type === 'tool') {
    const state = part.state ?? {};
    const status = state.status ?? 'pending';
    const edit = editDiff(state.input);
    const input = edit ?? `<pre class="tool-io">${escapeHtml(clip(asText(state.input)))}</pre>`;
    const result = status === 'error' ? `<pre class="tool-io tool-error">${escapeHtml(clip(asText(state.error) || 'failed'))}</pre>` : state.output !== undefined ? `<pre class="tool-io">${escapeHtml(clip(asText(state.output)))}</pre>` : '';
    return (
      `<details class="tool"${id}><summary><span class="tool-name">${escapeHtml(part.tool ?? 'tool')}</span> <span class="tool-title">${escapeHtml(state.title ?? '')}</span> <span class="badge s-${escapeAttr(status)}">${escapeHtml(status)}</span></summary>` +
      `<div class="tool-body"><div class="tool-label">Input</div>${input}${result ? `<div class="tool-label">Result</div>${result}` : ''}</div></details>`
    );
  }
  return '';
}

/** A reply that failed: why, where the runtime writes no part for it. */
function renderFailure(message: RuntimeMessage): string {
  const text = replyFailure(message);
  if (text === null) return '';
  const id = message.info?.id ? ` data-error="${escapeAttr(message.info.id)}"` : '';
  return `<div class="turn turn-error"${id}><div class="turn-who">The agent's reply failed</div><div class="turn-text">${escapeHtml(text)}</div></div>`;
}

export function renderConversation(messages: readonly RuntimeMessage[]): string {
  return messages.map((message) => (message.parts ?? []).map((part) => renderPart(part, message.info?.role ?? 'assistant')).join('') + renderFailure(message)).join('');
}
