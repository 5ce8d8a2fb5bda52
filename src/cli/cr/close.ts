import type { CliDeps } from '../deps.js';
import { printJson } from '../output.js';
import { crPath, projectClient, withHints, type ChangeRequest } from './change-request-api.js';

export interface CrStateOptions {
  project?: string;
  json?: boolean;
}

/** `svc cr close <cr>`: close without merging (closing a closed CR is a no-op). */
export async function runCrClose(cr: string, options: CrStateOptions, deps: CliDeps): Promise<void> {
  const { client, base } = await projectClient(options, deps);
  const { body } = await withHints(() => client.request<{ change_request: ChangeRequest }>('POST', crPath(base, cr, 'close')));
  if (options.json) return printJson(deps, body.change_request);
  deps.stderr.write(`Closed change request #${body.change_request.number}; svc cr reopen ${body.change_request.number} brings it back.\n`);
}
