import type { CliDeps } from '../deps.js';
import { printJson } from '../output.js';
import { crPath, projectClient, withHints, type ChangeRequest } from './change-request-api.js';
import type { CrStateOptions } from './close.js';

/** `svc cr reopen <cr>`: reopen a closed CR (its branches are read afresh). */
export async function runCrReopen(cr: string, options: CrStateOptions, deps: CliDeps): Promise<void> {
  const { client, base } = await projectClient(options, deps);
  const { body } = await withHints(() => client.request<{ change_request: ChangeRequest }>('POST', crPath(base, cr, 'reopen')));
  if (options.json) return printJson(deps, body.change_request);
  deps.stderr.write(`Reopened change request #${body.change_request.number} (${body.change_request.head_ref} → ${body.change_request.base_ref}).\n`);
}
