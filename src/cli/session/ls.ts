import type { CliDeps } from '../deps.js';
import { printJson, printTable, timeCell } from '../output.js';
import { sessionClient, type Session } from './session-api.js';

export interface SessionLsOptions {
  status?: string;
  trigger?: string;
  project?: string;
  json?: boolean;
}

export async function runSessionLs(options: SessionLsOptions, deps: CliDeps): Promise<void> {
  const { client, base } = await sessionClient(options, deps);
  const query = new URLSearchParams();
  if (options.status) query.set('status', options.status);
  if (options.trigger) query.set('trigger', options.trigger);
  const { body } = await client.request<{ sessions: Session[] }>('GET', `${base}${query.size ? `?${query}` : ''}`);
  if (options.json) return printJson(deps, body.sessions);
  if (body.sessions.length === 0) {
    if (deps.isTTY) deps.stderr.write('No sessions; start one with: svc session create --prompt "..."\n');
    return;
  }
  printTable(deps, body.sessions, [
    { header: 'id', value: (session) => session.id },
    { header: 'status', value: (session) => session.status },
    { header: 'agent', value: (session) => session.agent ?? 'default' },
    { header: 'trigger', value: (session) => session.trigger_slug ?? '-' },
    { header: 'active', value: (session) => timeCell(deps, session.last_activity_at ?? session.updated_at) },
  ]);
}
