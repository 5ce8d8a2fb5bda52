import type { CliDeps } from '../deps.js';
import { printJson, printTable, timeCell } from '../output.js';
import { projectClient, withHints, type ChangeRequest } from './change-request-api.js';
import { statusLabel } from './status-label.js';

export interface CrLsOptions {
  status?: 'open' | 'merged' | 'closed' | 'all';
  project?: string;
  json?: boolean;
}

/** `svc cr ls`: open CRs by default, newest first; a table on a terminal, tab-separated when piped. */
export async function runCrLs(options: CrLsOptions, deps: CliDeps): Promise<void> {
  const status = options.status ?? 'open';
  const { client, base } = await projectClient(options, deps);
  const { body } = await withHints(() => client.request<{ change_requests: ChangeRequest[] }>('GET', `${base}?status=${status}`));
  if (options.json) return printJson(deps, body.change_requests);
  if (body.change_requests.length === 0) {
    if (deps.isTTY) deps.stderr.write(`No ${status === 'all' ? '' : `${status} `}change requests; open one with: svc cr open --title "..."\n`);
    return;
  }
  printTable(deps, body.change_requests, [
    { header: '#', value: (cr) => (deps.isTTY ? `#${cr.number}` : String(cr.number)), numeric: true },
    { header: 'title', value: (cr) => cr.title },
    { header: 'head', value: (cr) => cr.head_ref },
    { header: 'base', value: (cr) => cr.base_ref },
    { header: 'updated', value: (cr) => timeCell(deps, cr.updated_at) },
    // Last, because colour codes would throw the padding of any column after it.
    { header: 'status', value: (cr) => statusLabel(deps, cr.status) },
  ]);
}
