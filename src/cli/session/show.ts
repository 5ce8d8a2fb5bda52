import type { CliDeps } from '../deps.js';
import { printJson } from '../output.js';
import { peopleNames } from '../people.js';
import { resolveSessionId, sessionClient, sessionPath, type Session } from './session-api.js';

export interface SessionShowOptions {
  project?: string;
  json?: boolean;
}

export async function runSessionShow(id: string, options: SessionShowOptions, deps: CliDeps): Promise<void> {
  const found = await sessionClient(options, deps);
  const { client, projectId } = found;
  const { body } = await client.request<{ session: Session }>('GET', sessionPath(found.base, await resolveSessionId(found, id)));
  const session = body.session;
  if (options.json) return printJson(deps, session);
  const rows: Array<[string, string]> = [
    ['session', session.id],
    ['status', session.status],
    ['sandbox', `${session.sandbox.provider ?? '-'} (${session.sandbox.state ?? '-'})`],
    ['branch', `${session.branch} (from ${session.base_ref})`],
    ['agent', `${session.agent ?? 'default'}${session.model ? ` · ${session.model}` : ''}`],
    ['trigger', session.trigger_slug ?? '-'],
    ['started by', (await peopleNames(client, projectId, [session.created_by]))(session.created_by)],
    ['created', session.created_at],
    ['last activity', session.last_activity_at ?? '-'],
  ];
  if (session.error) rows.push(['error', session.error]);
  for (const [label, value] of rows) deps.stdout.write(`${label.padEnd(14)}${value}\n`);
}
