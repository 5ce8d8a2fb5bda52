import type { CliDeps } from '../deps.js';
import { printJson, timeCell } from '../output.js';
import { peopleNames } from '../people.js';
import { crPath, projectClient, withHints, type ChangeRequest } from './change-request-api.js';

export interface CrStateOptions {
  project?: string;
  json?: boolean;
}

/**
 * `svc cr close <cr>`: close without merging. The API answers a close of a closed CR like any other (it
 * changes nothing), so the CR is read first: the person is told it already was, and by whom.
 */
export async function runCrClose(cr: string, options: CrStateOptions, deps: CliDeps): Promise<void> {
  const { client, base, projectId } = await projectClient(options, deps);
  const before = (await withHints(() => client.request<{ change_request: ChangeRequest }>('GET', crPath(base, cr)))).body.change_request;
  const { body } = await withHints(() => client.request<{ change_request: ChangeRequest }>('POST', crPath(base, cr, 'close')));
  if (options.json) return printJson(deps, body.change_request);
  const closed = body.change_request;
  if (before.status === 'closed') {
    const nameOf = await peopleNames(client, projectId, [closed.closed_by]);
    deps.stderr.write(`Change request #${closed.number} was already closed (${timeCell({ ...deps, isTTY: true }, closed.closed_at)} by ${nameOf(closed.closed_by)}); nothing changed.\n`);
    return;
  }
  deps.stderr.write(`Closed change request #${closed.number}; svc cr reopen ${closed.number} brings it back.\n`);
}
