import { CliError, type CliDeps } from '../deps.js';
import { printJson } from '../output.js';
import { checkedOutBranch, projectClient, withHints, type ChangeRequest } from './change-request-api.js';

export interface CrOpenOptions {
  title: string;
  description?: string;
  head?: string;
  base?: string;
  session?: string;
  project?: string;
  json?: boolean;
}

/**
 * `svc cr open --title …`. Inside a session sandbox the head branch comes from SVC_BRANCH_NAME (or
 * SVC_HEAD_REF), the session from SVC_SESSION_ID and the project from SVC_PROJECT_ID; elsewhere from the
 * flags, or the linked repository (svc link) and its checked-out branch. The base defaults, on the server,
 * to the project's default branch. Prints `#<number>` on stdout.
 */
export async function runCrOpen(options: CrOpenOptions, deps: CliDeps): Promise<void> {
  const head = options.head ?? (deps.env.SVC_BRANCH_NAME || deps.env.SVC_HEAD_REF || checkedOutBranch(deps.cwd));
  if (!head) {
    throw new CliError('Which branch? Pass --head <branch> (inside a session SVC_BRANCH_NAME names it), or run svc cr open from a checkout of your branch.', 2);
  }
  const session = options.session ?? (deps.env.SVC_SESSION_ID || undefined);
  const { client, base } = await projectClient(options, deps);
  const { body } = await withHints(() =>
    client.request<{ change_request: ChangeRequest }>('POST', base, {
      body: { title: options.title, description: options.description, head_ref: head, base_ref: options.base, session_id: session },
      fieldNames: { head_ref: '--head', base_ref: '--base', session_id: '--session (or SVC_SESSION_ID)' },
    }),
  );
  const cr = body.change_request;
  if (options.json) return printJson(deps, cr);
  deps.stdout.write(`#${cr.number}\n`);
  deps.stderr.write(
    `Opened change request #${cr.number} (${cr.head_ref} → ${cr.base_ref}): ${cr.title}\n` +
      `New pushes to ${cr.head_ref} appear in it; check it with svc cr show ${cr.number}.\n`,
  );
}
