import type { CliDeps } from '../deps.js';
import { colour, printJson, printTable, timeCell } from '../output.js';
import { triggerClient, type TriggerListing } from './trigger-api.js';

export interface TriggerLsOptions {
  project?: string;
  json?: boolean;
}

/** `svc trigger ls`: every trigger with its schedule (a webhook's: its URL) and next and last fires; the manifest's bad entries on stderr. */
export async function runTriggerLs(options: TriggerLsOptions, deps: CliDeps): Promise<void> {
  const { client, base, projectId } = await triggerClient(options, deps);
  // A webhook trigger's schedule is where to deliver: the address its sender needs.
  const receiver = (slug: string) => `POST ${client.origin}/v1/webhooks/projects/${projectId}/${slug}`;
  const { body } = await client.request<TriggerListing>('GET', base);
  if (options.json) return printJson(deps, body);
  if (body.triggers.length === 0 && body.errors.length === 0 && deps.isTTY) {
    deps.stderr.write(body.manifest.path ? `${body.manifest.path} declares no triggers.\n` : 'No svc.yaml on the default branch, so no triggers; add a triggers: list and merge it.\n');
  }
  if (body.triggers.length > 0) {
    printTable(deps, body.triggers, [
      { header: 'slug', value: (trigger) => trigger.slug },
      { header: 'type', value: (trigger) => trigger.type },
      { header: 'schedule', value: (trigger) => (trigger.type === 'webhook' ? receiver(trigger.slug) : (trigger.cron ?? `once at ${trigger.run_at}`) + (trigger.timezone && trigger.timezone !== 'UTC' ? ` ${trigger.timezone}` : '')) },
      { header: 'mode', value: (trigger) => trigger.session_mode },
      { header: 'enabled', value: (trigger) => (trigger.enabled ? 'yes' : 'no') },
      { header: 'next', value: (trigger) => (trigger.next_fire_at ? timeCell(deps, trigger.next_fire_at) : '-') },
      { header: 'last', value: (trigger) => (trigger.last_fired_at ? timeCell(deps, trigger.last_fired_at) : '-') },
    ]);
  }
  for (const error of body.errors) deps.stderr.write(`${colour(deps, 'red', 'error')}: ${error.message}\n`);
}
