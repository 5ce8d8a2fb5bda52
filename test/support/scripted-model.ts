/**
 * A scripted model: a small OpenAI-compatible chat-completions server that tests point the agent runtime
 * at (a custom provider with `@ai-sdk/openai-compatible` and this server's `baseURL`). Each model call
 * that offers tools (the agent's turns) answers with the next scripted step, streamed exactly as OpenAI
 * streams it (role delta, content or `tool_calls` deltas split across chunks, `finish_reason`, usage,
 * `[DONE]`). Calls without tools (the runtime's own title and summary requests) get a fixed short text and
 * consume no step, so they cannot shift the script. Every request is recorded for assertions.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptStep =
  | { text: string; delayMs?: number; gate?: Promise<void>; pieceDelayMs?: number }
  | { tool: string; input: Record<string, unknown>; text?: string; delayMs?: number; gate?: Promise<void> };

export interface RecordedRequest {
  at: number;
  body: any;
  /** True when the request offered tools, i.e. an agent turn that consumed (or wanted) a script step. */
  agentTurn: boolean;
  /** The text of the last user message, as the model saw it. */
  lastUserText: string;
}

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>/v1`, the provider's baseURL. */
  baseUrl: string;
  modelId: string;
  requests: RecordedRequest[];
  /** Appends steps to the script (tests script turn by turn). */
  push(...steps: ScriptStep[]): void;
  /** Steps not yet answered. */
  remaining(): number;
  /** Resolves once `count` agent-turn requests have arrived (counting from the start). */
  waitForAgentRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

export interface ScriptedModelOptions {
  modelId?: string;
  /** Text for tool-less requests (session titles). */
  utilityText?: string;
  /** Text when an agent turn finds the script empty. */
  exhaustedText?: string;
  /** Answers agent turns from the request itself instead of the script (many sessions at once, in any order). */
  respond?: (body: any) => ScriptStep;
  /** Told when each piece of a step's text is written to the runtime (Date.now()-based, sub-millisecond). */
  onTextPiece?: (piece: string, sentAt: number) => void;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (part && typeof part === 'object' && 'text' in part ? String((part as { text: unknown }).text) : '')).join('');
  return '';
}

/** Cuts a string into pieces so a client has to reassemble deltas, as it must with a real model. */
function pieces(value: string, size: number): string[] {
  if (value.length === 0) return [''];
  const out: string[] = [];
  for (let index = 0; index < value.length; index += size) out.push(value.slice(index, index + size));
  return out;
}

export async function startScriptedModel(script: ScriptStep[] = [], options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const modelId = options.modelId ?? 'scripted-model';
  const steps = [...script];
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let sequence = 0;

  function notify(): void {
    const turns = requests.filter((request) => request.agentTurn).length;
    for (const waiter of [...waiters]) {
      if (turns >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  async function answer(body: any, response: http.ServerResponse): Promise<void> {
    const agentTurn = Array.isArray(body.tools) && body.tools.length > 0;
    const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
    const lastUser = [...messages].reverse().find((message) => message?.role === 'user');
    requests.push({ at: Date.now(), body, agentTurn, lastUserText: textOf(lastUser?.content) });
    notify();

    const step: ScriptStep = agentTurn ? (options.respond?.(body) ?? steps.shift() ?? { text: options.exhaustedText ?? 'The script has no more steps.' }) : { text: options.utilityText ?? 'Scripted session' };
    if (step.gate) await step.gate;
    if (step.delayMs) await new Promise((resolve) => setTimeout(resolve, step.delayMs));

    const id = `chatcmpl-scripted-${++sequence}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id, object: 'chat.completion.chunk', created, model: modelId, system_fingerprint: 'fp_scripted', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

    if (body.stream !== true) {
      const message: Record<string, unknown> = { role: 'assistant', content: 'text' in step && step.text !== undefined ? step.text : null };
      if ('tool' in step) message.tool_calls = [{ id: `call_${sequence}`, type: 'function', function: { name: step.tool, arguments: JSON.stringify(step.input) } }];
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id, object: 'chat.completion', created, model: modelId, choices: [{ index: 0, message, logprobs: null, finish_reason: 'tool' in step ? 'tool_calls' : 'stop' }], usage }));
      return;
    }

    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (data: unknown) => response.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    send(chunk({ role: 'assistant', content: '' }));
    if (step.text) {
      for (const piece of pieces(step.text, 8)) {
        // A step that streams slowly, as a model does, so each piece reaches the runtime on its own.
        if ('pieceDelayMs' in step && step.pieceDelayMs) await new Promise((resolve) => setTimeout(resolve, step.pieceDelayMs));
        send(chunk({ content: piece }));
        options.onTextPiece?.(piece, performance.timeOrigin + performance.now());
      }
    }
    if ('tool' in step) {
      send(chunk({ tool_calls: [{ index: 0, id: `call_${sequence}`, type: 'function', function: { name: step.tool, arguments: '' } }] }));
      for (const piece of pieces(JSON.stringify(step.input), 12)) send(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
      send(chunk({}, 'tool_calls'));
    } else {
      send(chunk({}, 'stop'));
    }
    if (body.stream_options?.include_usage) send({ id, object: 'chat.completion.chunk', created, model: modelId, choices: [], usage });
    send('[DONE]');
    response.end();
  }

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method === 'GET' && url.pathname === '/v1/models') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: modelId, object: 'model', created: 0, owned_by: 'svc-tests' }] }));
      return;
    }
    if (request.method === 'POST' && url.pathname === '/v1/chat/completions') {
      const chunks: Buffer[] = [];
      request.on('data', (data: Buffer) => chunks.push(data));
      request.on('end', () => {
        let body: any;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          response.writeHead(400, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { message: 'The body is not JSON.', type: 'invalid_request_error' } }));
          return;
        }
        answer(body, response).catch((error: unknown) => {
          if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { message: String(error), type: 'server_error' } }));
        });
      });
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: `No route ${request.method} ${url.pathname}.`, type: 'invalid_request_error' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    modelId,
    requests,
    push: (...more) => void steps.push(...more),
    remaining: () => steps.length,
    waitForAgentRequests(count) {
      return new Promise<void>((resolve) => {
        waiters.push({ count, resolve });
        notify();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A gate a test opens when it is ready: a slow model turn that ends exactly when the test says so. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
