import type { Command } from 'commander';
import type { CliDeps } from '../deps.js';
import { parseIntegerOption } from '../options.js';
import { runTriggerFire, type TriggerFireOptions } from './fire.js';
import { DEFAULT_FIRES_LISTED, MAX_FIRES_LISTED, runTriggerFires, type TriggerFiresOptions } from './fires.js';
import { runTriggerLs, type TriggerLsOptions } from './ls.js';

const PROJECT_FLAG = ['--project <id or slug>', 'the project (default: SVC_PROJECT_ID, or the one svc link recorded here)'] as const;

/** `svc trigger …` (contract §8). */
export function registerTrigger(program: Command, deps: () => CliDeps): void {
  const trigger = program.command('trigger').description("triggers: cron and webhook entries of the manifest that start sessions");
  trigger
    .command('ls')
    .description("list triggers with their schedules (a webhook trigger's URL), next and last fires, and the manifest entries that could not be read")
    .option(...PROJECT_FLAG)
    .option('--json', 'print the API listing')
    .action((options: TriggerLsOptions) => runTriggerLs(options, deps()));
  trigger
    .command('fires <slug>')
    .description('fires of a trigger, newest first: source, status, session')
    .option(...PROJECT_FLAG)
    .option('--limit <n>', `how many of the newest fires (1 to ${MAX_FIRES_LISTED}; default ${DEFAULT_FIRES_LISTED})`, parseIntegerOption('--limit', 1, MAX_FIRES_LISTED))
    .option('--before <id>', 'only fires older than this one (the next page, as the hint after a full page names)')
    .option('--json', 'print the API objects')
    .action((slug: string, options: TriggerFiresOptions) => runTriggerFires(slug, options, deps()));
  trigger
    .command('fire <slug>')
    .description('fire a trigger now (prints the session id); needs triggers.fire')
    .option('--message <text>', 'passed to the prompt as {{ message.text }}')
    .option(...PROJECT_FLAG)
    .option('--json', 'print the answer')
    .action((slug: string, options: TriggerFireOptions) => runTriggerFire(slug, options, deps()));
}
