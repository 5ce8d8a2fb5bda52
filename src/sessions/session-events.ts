/**
 * GET …/sessions/:sid/events (contract §6): a server-sent event stream that opens with the session's current
 * `session.status`, then carries svc's own status changes and, while the sandbox runs, the agent runtime's
 * events as the runtime names them. It stays open across hibernation and wake-up: when the sandbox stops
 * the runtime's part pauses, and it resumes when the sandbox is running again.
 *
 * Status changes made in this process arrive at once through the event bus; those made by another replica
 * are read from the database every second.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from '../context.js';
import { daemonRequest } from './daemon-client.js';
import type { SessionRow } from './session-row.js';

const STATUS_POLL_MS = 1_000;
const KEEPALIVE_MS = 15_000;

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export async function streamSessionEvents(services: Services, initial: SessionRow, userId: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no', 'x-content-type-options': 'nosniff' });
  let closed = false;
  let last = { status: initial.status, sandbox_state: initial.sandbox_state };
  const send = (event: string, data: unknown) => {
    if (!closed) response.write(frame(event, data));
  };
  const sendStatus = (status: string, sandboxState: string | null, at: string) => {
    last = { status: status as SessionRow['status'], sandbox_state: sandboxState as SessionRow['sandbox_state'] };
    send('session.status', { status, sandbox_state: sandboxState, at });
  };
  sendStatus(initial.status, initial.sandbox_state, initial.updated_at);

  let runtime: AbortController | null = null;
  const followRuntime = async () => {
    if (runtime || closed) return;
    const session = await services.db.selectFrom('sessions').selectAll().where('id', '=', initial.id).executeTakeFirst();
    if (!session || session.status !== 'running' || !session.daemon_url) return;
    const controller = new AbortController();
    runtime = controller;
    try {
      const answer = await daemonRequest(services, session, '/event', { signal: controller.signal, headers: { accept: 'text/event-stream' } }, userId);
      if (!answer.ok || !answer.body) return;
      const decoder = new TextDecoder();
      let buffered = '';
      for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n\n')) !== -1) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = block
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n');
          if (!data) continue;
          try {
            const event = JSON.parse(data) as { type?: unknown };
            send(typeof event.type === 'string' ? event.type : 'message', event);
          } catch {
            // Not an event of the runtime's shape; left out.
          }
        }
      }
    } catch {
      // The sandbox stopped or restarted; the status poll follows it again when it runs.
    } finally {
      if (runtime === controller) runtime = null;
    }
  };

  const unsubscribe = services.events.on('session.status', (event) => {
    if (event.sessionId !== initial.id) return;
    sendStatus(event.status, event.sandboxState, event.at);
    if (event.status === 'running') void followRuntime();
  });
  const poll = setInterval(() => {
    void services.db
      .selectFrom('sessions')
      .select(['status', 'sandbox_state', 'updated_at'])
      .where('id', '=', initial.id)
      .executeTakeFirst()
      .then((row) => {
        if (!row) return;
        if (row.status !== last.status || row.sandbox_state !== last.sandbox_state) sendStatus(row.status, row.sandbox_state, row.updated_at);
        if (row.status === 'running') void followRuntime();
      })
      .catch(() => undefined);
  }, STATUS_POLL_MS);
  const keepalive = setInterval(() => {
    if (!closed) response.write(': keep-alive\n\n');
  }, KEEPALIVE_MS);
  void followRuntime();

  await new Promise<void>((resolve) => {
    const finish = () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      clearInterval(poll);
      clearInterval(keepalive);
      runtime?.abort();
      resolve();
    };
    request.on('close', finish);
    response.on('close', finish);
  });
}
