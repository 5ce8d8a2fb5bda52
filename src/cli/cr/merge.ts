import type { CliDeps } from '../deps.js';
import { printJson } from '../output.js';
import { crPath, projectClient, shortSha, withHints, type ChangeRequest } from './change-request-api.js';

export interface CrMergeOptions {
  message?: string;
  project?: string;
  json?: boolean;
}

interface MergeResult {
  change_request: ChangeRequest;
  merge_commit_sha: string;
  fast_forward: boolean;
}

/** `svc cr merge <cr>`: fast-forward or three-way merge on the server; prints the commit base now points at. */
export async function runCrMerge(cr: string, options: CrMergeOptions, deps: CliDeps): Promise<void> {
  const { client, base } = await projectClient(options, deps);
  const { body } = await withHints(() =>
    client.request<MergeResult>('POST', crPath(base, cr, 'merge'), { body: options.message === undefined ? {} : { message: options.message } }),
  );
  if (options.json) return printJson(deps, body);
  const merged = body.change_request;
  deps.stdout.write(`${body.merge_commit_sha}\n`);
  const how = body.fast_forward ? `fast-forward to ${shortSha(body.merge_commit_sha)}` : `merge commit ${shortSha(body.merge_commit_sha)}`;
  deps.stderr.write(`Merged change request #${merged.number} into ${merged.base_ref} (${how}). The branch ${merged.head_ref} is kept.\n`);
  if (body.fast_forward && options.message !== undefined) {
    deps.stderr.write(`A fast-forward makes no merge commit, so --message was not used; ${merged.base_ref} now points at the commits of ${merged.head_ref} as they are.\n`);
  }
}
