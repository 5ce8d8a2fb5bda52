import { Option, type Command } from 'commander';
import type { CliDeps } from '../deps.js';
import { runCrClose, type CrStateOptions } from './close.js';
import { runCrDiff, type CrDiffOptions } from './diff.js';
import { runCrLs, type CrLsOptions } from './ls.js';
import { runCrMerge, type CrMergeOptions } from './merge.js';
import { runCrOpen, type CrOpenOptions } from './open.js';
import { runCrReopen } from './reopen.js';
import { runCrShow, type CrShowOptions } from './show.js';

const PROJECT_FLAG = ['--project <id or slug>', 'the project (default: SVC_PROJECT_ID, or the one svc link recorded here)'] as const;

/** `svc cr …` (spec 2 "Command-line surface"). `<cr>` is a number (3 or #3) or a cr_id. */
export function registerCr(program: Command, deps: () => CliDeps): void {
  const cr = program.command('cr').description('change requests: open, list, review, merge');
  cr.command('ls')
    .description('list change requests, newest first (default: open ones)')
    .addOption(new Option('--status <status>', 'which ones').choices(['open', 'merged', 'closed', 'all']).default('open'))
    .option(...PROJECT_FLAG)
    .option('--json', 'print the API objects')
    .action((options: CrLsOptions) => runCrLs(options, deps()));
  cr.command('show <cr>')
    .description('metadata and, for an open CR, the merge preview')
    .option(...PROJECT_FLAG)
    .option('--json', 'print {change_request, merge_preview}')
    .action((ref: string, options: CrShowOptions) => runCrShow(ref, options, deps()));
  cr.command('diff <cr>')
    .description('the unified patch (three-dot; captured SHAs once merged)')
    .option('--no-color', 'no colour even on a terminal')
    .option(...PROJECT_FLAG)
    .action((ref: string, options: CrDiffOptions) => runCrDiff(ref, options, deps()));
  cr.command('open')
    .description('open a change request from your pushed branch')
    .requiredOption('--title <title>', 'what the change does')
    .option('--description <text>', 'more detail')
    .option('--head <branch>', 'branch to merge (default: SVC_BRANCH_NAME, SVC_HEAD_REF, or the checked-out branch)')
    .option('--base <branch>', "branch to merge into (default: the project's default branch)")
    .option('--session <id>', 'the session opening it (default: SVC_SESSION_ID)')
    .option(...PROJECT_FLAG)
    .option('--json', 'print the created change request')
    .action((options: CrOpenOptions) => runCrOpen(options, deps()));
  cr.command('merge <cr>')
    .description('merge: fast-forward when possible, otherwise a merge commit')
    .option('--message <text>', 'merge commit message (default "Merge CR #<n>: <title>")')
    .option(...PROJECT_FLAG)
    .option('--json', 'print the merge result')
    .action((ref: string, options: CrMergeOptions) => runCrMerge(ref, options, deps()));
  cr.command('close <cr>')
    .description('close without merging')
    .option(...PROJECT_FLAG)
    .option('--json', 'print the change request')
    .action((ref: string, options: CrStateOptions) => runCrClose(ref, options, deps()));
  cr.command('reopen <cr>')
    .description('reopen a closed change request')
    .option(...PROJECT_FLAG)
    .option('--json', 'print the change request')
    .action((ref: string, options: CrStateOptions) => runCrReopen(ref, options, deps()));
}
