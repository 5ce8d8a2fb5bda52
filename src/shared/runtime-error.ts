/**
 * Why the agent's reply failed, as a sentence for people. The runtime (opencode) puts the failure on the
 * assistant message (`info.error`: `{name, data: {message, …}}`) and writes no part for it, so a conversation
 * read for its parts showed the prompt and then nothing: a trigger's session with no model configured looked
 * like an agent thinking forever.
 */

/** The runtime's own provider, which it falls back to when its configuration names no model. */
const BUILT_IN_PROVIDER = 'opencode';

export interface RuntimeMessageInfo {
  id?: string;
  role?: string;
  /** The runtime's failure of this message, when it failed. */
  error?: unknown;
  providerID?: string;
  modelID?: string;
}

function textOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** The address a failed request went to, without its query (where a provider may take its key). */
function endpointOf(value: unknown): string | null {
  const text = textOf(value);
  if (text === null || !URL.canParse(text)) return null;
  const url = new URL(text);
  return `${url.origin}${url.pathname}`;
}

/** Only what `runtimeErrorText` reads of a failure (not the provider's response headers and body): svc's stored copy. */
export function failureKept(error: unknown): unknown {
  if (!error || typeof error !== 'object') return undefined;
  const { name, data } = error as { name?: unknown; data?: { message?: unknown; metadata?: { url?: unknown } } };
  return { name, data: { message: data?.message, metadata: { url: endpointOf(data?.metadata?.url) } } };
}

function sentence(text: string): string {
  return /[.?!]$/.test(text) ? text : `${text}.`;
}

/** The failure of a runtime message as one line, or null when it did not fail. */
export function runtimeErrorText(info: RuntimeMessageInfo | undefined): string | null {
  const error = info?.error;
  if (!error || typeof error !== 'object') return null;
  const { name, data } = error as { name?: unknown; data?: { message?: unknown; metadata?: { url?: unknown } } };
  const kind = textOf(name) ?? 'Error';
  if (kind === 'MessageAbortedError') return 'The reply was stopped before it finished.';
  const model = info?.providerID && info.modelID ? `model ${info.providerID}/${info.modelID}` : null;
  const url = endpointOf(data?.metadata?.url);
  const where = [model, url].filter((part): part is string => part !== null).join(' at ');
  const reason = sentence(textOf(data?.message) ?? 'the runtime gave no reason');
  const hint =
    info?.providerID === BUILT_IN_PROVIDER
      ? " That is the agent runtime's built-in provider, used when the repository's .svc/runtime/opencode.json names no model: name a provider and model there, and set its key as a project secret."
      : '';
  return `${kind}${where ? ` (${where})` : ''}: ${reason}${hint}`;
}
