/** `svc session stop|resume|rm <id>`: each one request, and a sentence of what happened. */
import type { CliDeps } from '../deps.js';
import { printJson } from '../output.js';
import { resolveSessionId, sessionClient, sessionPath, type Session } from './session-api.js';

export interface SessionActionOptions {
  project?: string;
  json?: boolean;
}

export async function runSessionStop(id: string, options: SessionActionOptions, deps: CliDeps): Promise<void> {
  const session = await sessionClient(options, deps);
  const { body } = await session.client.request<{ session: Session }>('POST', sessionPath(session.base, await resolveSessionId(session, id), 'stop'));
  if (options.json) return printJson(deps, body.session);
  deps.stderr.write(`Stopped session ${body.session.id}: its files and conversation are kept; svc session resume ${body.session.id} (or send it a message) wakes it.\n`);
}

export async function runSessionResume(id: string, options: SessionActionOptions, deps: CliDeps): Promise<void> {
  const session = await sessionClient(options, deps);
  const { body } = await session.client.request<{ session: Session }>('POST', sessionPath(session.base, await resolveSessionId(session, id), 'resume'));
  if (options.json) return printJson(deps, body.session);
  deps.stderr.write(`Session ${body.session.id} is ${body.session.status}.\n`);
}

export async function runSessionRm(id: string, options: SessionActionOptions, deps: CliDeps): Promise<void> {
  const session = await sessionClient(options, deps);
  const sessionId = await resolveSessionId(session, id);
  await session.client.request<null>('DELETE', sessionPath(session.base, sessionId));
  deps.stderr.write(`Deleted session ${sessionId}: its sandbox and files are gone; its branch ${sessionId} stays.\n`);
}
