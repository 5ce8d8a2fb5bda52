/**
 * What the `svc cr` commands share: the API's CR shapes, how `<cr>` is read, and the project a command
 * acts in. Every command is a thin wrapper over spec 2's REST endpoints.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isUuid } from '../../ids.js';
import { ApiClient, ApiError } from '../api-client.js';
import { resolveCredentials } from '../cli-config.js';
import { CliError, type CliDeps } from '../deps.js';
import { findGitDir } from '../link-file.js';
import { resolveProjectRef } from '../project-ref.js';

export interface ChangeRequest {
  cr_id: string;
  project_id: string;
  number: number;
  title: string;
  description: string;
  base_ref: string;
  head_ref: string;
  status: 'open' | 'merged' | 'closed';
  head_commit_sha: string | null;
  base_commit_sha: string | null;
  origin_session_id: string | null;
  created_by: string;
  merged_at: string | null;
  merged_by: string | null;
  merge_commit_sha: string | null;
  closed_at: string | null;
  closed_by: string | null;
  metadata: { requested_changes?: Array<{ text: string; by: string; at: string }>; [key: string]: unknown };
  created_at: string;
  updated_at: string;
}

export interface MergePreview {
  base_sha: string;
  head_sha: string;
  merge_base: string | null;
  is_up_to_date: boolean;
  can_merge: boolean;
  can_fast_forward: boolean;
  conflicts: string[];
}

/** `3`, `#3` or a cr_id; anything else is a usage error (exit 2) before any request is made. */
export function parseCrArgument(value: string): string {
  const trimmed = value.trim();
  if (isUuid(trimmed)) return trimmed.toLowerCase();
  const number = /^#?([1-9]\d{0,9})$/.exec(trimmed)?.[1];
  if (number) return number;
  throw new CliError(`${JSON.stringify(value)} is not a change request: pass its number (3 or #3) or its cr_id; svc cr ls lists them.`, 2);
}

/** An authenticated client and the project the command acts in (--project, SVC_PROJECT_ID, or svc link). */
export async function projectClient(options: { project?: string | undefined }, deps: CliDeps): Promise<{ client: ApiClient; projectId: string; base: string }> {
  const client = new ApiClient(resolveCredentials(deps));
  const projectId = await resolveProjectRef(client, options.project, deps);
  return { client, projectId, base: `/v1/projects/${projectId}/change-requests` };
}

/** The path of one CR's endpoint, e.g. `…/change-requests/3/merge`. */
export function crPath(base: string, cr: string, action?: string): string {
  return `${base}/${encodeURIComponent(parseCrArgument(cr))}${action ? `/${action}` : ''}`;
}

/** Adds the next step to API errors where the server's sentence alone leaves the user guessing. */
export async function withHints<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError && error.body.code === 'NOT_FOUND' && !error.details.length) {
      throw new ApiError(error.status, error.body, ['svc cr ls --status all lists the change requests of this project.']);
    }
    throw error;
  }
}

/**
 * The branch checked out in the working directory's repository, for `svc cr open` outside a session
 * (null on a detached HEAD or outside a repository).
 */
export function checkedOutBranch(cwd: string): string | null {
  const gitDir = findGitDir(cwd);
  if (!gitDir) return null;
  try {
    const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    return head.startsWith('ref: refs/heads/') ? head.slice('ref: refs/heads/'.length) : null;
  } catch {
    return null;
  }
}

export function shortSha(sha: string | null): string {
  return sha ? sha.slice(0, 10) : '-';
}

export function pluralise(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
