import type { CliDeps } from '../deps.js';
import { printJson, printTable, timeCell } from '../output.js';
import { triggerClient, triggerPath, type Fire } from './trigger-api.js';

/** The API's bounds on one listing of fires (GET …/fires?limit=). */
export const DEFAULT_FIRES_LISTED = 100;
export const MAX_FIRES_LISTED = 1000;

export interface TriggerFiresOptions {
  project?: string;
  limit?: number;
  before?: string;
  json?: boolean;
}

/** `svc trigger fires <slug>`: newest first, with the session each started and why one waits or failed. */
export async function runTriggerFires(slug: string, options: TriggerFiresOptions, deps: CliDeps): Promise<void> {
  const { client, base } = await triggerClient(options, deps);
  const query = new URLSearchParams();
  if (options.limit !== undefined) query.set('limit', String(options.limit));
  if (options.before) query.set('before', options.before);
  const { body } = await client.request<{ fires: Fire[]; next_before: string | null }>('GET', `${triggerPath(base, slug, 'fires')}${query.size ? `?${query}` : ''}`);
  // On standard error, so a script reading the list (or its JSON) still learns how to ask for the rest.
  const older = () => {
    if (body.next_before) deps.stderr.write(`Older fires are not listed; the next page: svc trigger fires ${nextPageArgs(slug, options, body.next_before)}\n`);
  };
  if (options.json) {
    printJson(deps, body.fires);
    return older();
  }
  if (body.fires.length === 0) {
    if (!deps.isTTY) return;
    if (options.before) deps.stderr.write(`Trigger ${slug} has no fires older than ${options.before} in the last 30 days.\n`);
    else deps.stderr.write(`Trigger ${slug} has not fired in the last 30 days; fire it with: svc trigger fire ${slug}\n`);
    return;
  }
  printTable(deps, body.fires, [
    { header: 'fired', value: (fire) => timeCell(deps, fire.fired_at) },
    { header: 'source', value: (fire) => fire.source },
    { header: 'status', value: (fire) => fire.status },
    { header: 'session', value: (fire) => fire.session_id ?? '-' },
    { header: 'reason', value: (fire) => [fire.reason, fire.fallback].filter(Boolean).join('; ') || '-' },
  ]);
  older();
}

/** The flags of this listing, with --before moved on to the next page. */
function nextPageArgs(slug: string, options: TriggerFiresOptions, nextBefore: string): string {
  const args = [
    slug,
    options.limit !== undefined ? `--limit ${options.limit}` : '',
    `--before ${nextBefore}`,
    options.project ? `--project ${options.project}` : '',
    options.json ? '--json' : '',
  ];
  return args.filter(Boolean).join(' ');
}
