import type { CliDeps } from '../deps.js';
import { printJson } from '../output.js';
import { triggerClient, triggerPath, type FireAnswer } from './trigger-api.js';

export interface TriggerFireOptions {
  message?: string;
  project?: string;
  json?: boolean;
}

/** `svc trigger fire <slug> [--message …]`: prints the session it started (stdout), or why it waits (stderr). */
export async function runTriggerFire(slug: string, options: TriggerFireOptions, deps: CliDeps): Promise<void> {
  const { client, base } = await triggerClient(options, deps);
  const body = options.message !== undefined ? { message: options.message } : {};
  const { body: answer } = await client.request<FireAnswer>('POST', triggerPath(base, slug, 'fire'), { body });
  if (options.json) return printJson(deps, answer);
  if (answer.session_id) deps.stdout.write(`${answer.session_id}\n`);
  // A queued fire's session may not exist yet: it is created under that id when the fire starts.
  if (answer.status === 'queued') deps.stderr.write(`Queued: ${answer.reason ?? ''}\nIts session starts when a slot frees; svc trigger fires ${slug} shows when.\n`);
  else deps.stderr.write(`Fired ${slug}; follow the session with: svc session logs ${answer.session_id ?? ''} --follow\n`);
}
