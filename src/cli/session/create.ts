import type { CliDeps } from '../deps.js';
import { printJson } from '../output.js';
import { sessionClient, type Session } from './session-api.js';

export interface SessionCreateOptions {
  prompt?: string;
  agent?: string;
  model?: string;
  base?: string;
  project?: string;
  json?: boolean;
}

/** `svc session create`: prints the session id (stdout) and how to follow it (stderr). */
export async function runSessionCreate(options: SessionCreateOptions, deps: CliDeps): Promise<void> {
  const { client, base } = await sessionClient(options, deps);
  const body: Record<string, string> = {};
  if (options.prompt !== undefined) body.prompt = options.prompt;
  if (options.agent !== undefined) body.agent = options.agent;
  if (options.model !== undefined) body.model = options.model;
  if (options.base !== undefined) body.base_ref = options.base;
  const { body: created } = await client.request<{ session: Session }>('POST', base, { body, fieldNames: { base_ref: '--base' } });
  if (options.json) return printJson(deps, created.session);
  deps.stdout.write(`${created.session.id}\n`);
  deps.stderr.write(`Session started on branch ${created.session.branch} (from ${created.session.base_ref}); follow it with: svc session logs ${created.session.id} --follow\n`);
}
