import type { CliDeps } from '../deps.js';
import { printJson, printTable, timeCell } from '../output.js';
import { sessionClient, type Session } from './session-api.js';

export interface SessionLsOptions {
  status?: string;
  trigger?: string;
  limit?: number;
  before?: string;
  project?: string;
  json?: boolean;
}

export async function runSessionLs(options: SessionLsOptions, deps: CliDeps): Promise<void> {
  const { client, base } = await sessionClient(options, deps);
  const query = new URLSearchParams();
  if (options.status) query.set('status', options.status);
  if (options.trigger) query.set('trigger', options.trigger);
  if (options.limit !== undefined) query.set('limit', String(options.limit));
  if (options.before) query.set('before', options.before);
  const { body } = await client.request<{ sessions: Session[]; next_before: string | null }>('GET', `${base}${query.size ? `?${query}` : ''}`);
  // On standard error, so a script reading the list (or its JSON) still learns how to ask for the rest.
  const older = () => {
    if (body.next_before) deps.stderr.write(`Older sessions are not listed; the next page: svc session ls ${nextPageArgs(options, body.next_before)}\n`);
  };
  if (options.json) {
    printJson(deps, body.sessions);
    return older();
  }
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
  older();
}

/** The flags of this listing, with --before moved on to the next page. */
function nextPageArgs(options: SessionLsOptions, nextBefore: string): string {
  const args = [
    options.status ? `--status ${options.status}` : '',
    options.trigger ? `--trigger ${options.trigger}` : '',
    options.limit !== undefined ? `--limit ${options.limit}` : '',
    `--before ${nextBefore}`,
    options.project ? `--project ${options.project}` : '',
    options.json ? '--json' : '',
  ];
  return args.filter(Boolean).join(' ');
}
