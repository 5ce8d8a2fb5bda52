import type { CliDeps } from '../deps.js';
import { printJson, printTable, timeCell } from '../output.js';
import { triggerClient, triggerPath, type Fire } from './trigger-api.js';

/** The API's bounds on one listing of fires (GET …/fires?limit=). */
export const DEFAULT_FIRES_LISTED = 100;
export const MAX_FIRES_LISTED = 1000;

export interface TriggerFiresOptions {
  project?: string;
  limit?: number;
  json?: boolean;
}

/** `svc trigger fires <slug>`: newest first, with the session each started and why one waits or failed. */
export async function runTriggerFires(slug: string, options: TriggerFiresOptions, deps: CliDeps): Promise<void> {
  const { client, base } = await triggerClient(options, deps);
  const query = options.limit === undefined ? '' : `?limit=${options.limit}`;
  const { body } = await client.request<{ fires: Fire[] }>('GET', `${triggerPath(base, slug, 'fires')}${query}`);
  if (options.json) return printJson(deps, body.fires);
  if (body.fires.length === 0) {
    if (deps.isTTY) deps.stderr.write(`Trigger ${slug} has not fired in the last 30 days; fire it with: svc trigger fire ${slug}\n`);
    return;
  }
  printTable(deps, body.fires, [
    { header: 'fired', value: (fire) => timeCell(deps, fire.fired_at) },
    { header: 'source', value: (fire) => fire.source },
    { header: 'status', value: (fire) => fire.status },
    { header: 'session', value: (fire) => fire.session_id ?? '-' },
    { header: 'reason', value: (fire) => [fire.reason, fire.fallback].filter(Boolean).join('; ') || '-' },
  ]);
}
