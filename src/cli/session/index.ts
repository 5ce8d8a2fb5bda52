import { Option, type Command } from 'commander';
import type { CliDeps } from '../deps.js';
import { runSessionCreate, type SessionCreateOptions } from './create.js';
import { runSessionResume, runSessionRm, runSessionStop, type SessionActionOptions } from './lifecycle.js';
import { parseIntegerOption } from '../options.js';
import { runSessionLogs, type SessionLogsOptions } from './logs.js';
import { runSessionLs, type SessionLsOptions } from './ls.js';
import { runSessionSend, type SessionSendOptions } from './send.js';
import { runSessionShow, type SessionShowOptions } from './show.js';

const PROJECT_FLAG = ['--project <id or slug>', 'the project (default: SVC_PROJECT_ID, or the one svc link recorded here)'] as const;
const STATUSES = ['queued', 'branching', 'provisioning', 'running', 'stopped', 'failed', 'completed'];

/** `svc session …` (contract §8). */
export function registerSession(program: Command, deps: () => CliDeps): void {
  const session = program.command('session').description('sessions: an agent at work in a sandbox, on its own branch');
  session.addHelpText('after', "\n<id> is a session's id, or its first characters (at least 4, as the web pages show it) when only one session begins with them.");
  session
    .command('create')
    .description('start a session (prints its id)')
    .option('--prompt <text>', 'the first message to the agent')
    .option('--agent <name>', 'the agent to run (default: default)')
    .option('--model <provider/model>', 'the model to run')
    .option('--base <branch>', "the branch to start from (default: the project's default branch)")
    .option(...PROJECT_FLAG)
    .option('--json', 'print the session')
    .action((options: SessionCreateOptions) => runSessionCreate(options, deps()));
  session
    .command('ls')
    .description('list sessions, newest first')
    .addOption(new Option('--status <status>', 'only these').choices(STATUSES))
    .option('--trigger <slug>', 'only those a trigger started')
    .option('--limit <n>', 'at most this many (1 to 500, default 500)', parseIntegerOption('--limit', 1, 500))
    .option('--before <id>', 'only sessions older than this one (the next page, as the hint after a full page names)')
    .option(...PROJECT_FLAG)
    .option('--json', 'print the API objects')
    .action((options: SessionLsOptions) => runSessionLs(options, deps()));
  session
    .command('show <id>')
    .description('status, sandbox, branch and error of a session')
    .option(...PROJECT_FLAG)
    .option('--json', 'print the session')
    .action((id: string, options: SessionShowOptions) => runSessionShow(id, options, deps()));
  session
    .command('send <id> <text>')
    .description('send the agent a message (- reads it from standard input); wakes a stopped session')
    .option(...PROJECT_FLAG)
    .option('--json', 'print the session')
    .action((id: string, text: string, options: SessionSendOptions) => runSessionSend(id, text, options, deps()));
  session
    .command('logs <id>')
    .description("the agent's conversation: text, tool calls and their results")
    .option('-f, --follow', 'keep printing as the agent works')
    .option(...PROJECT_FLAG)
    .action((id: string, options: SessionLogsOptions) => runSessionLogs(id, options, deps()));
  for (const [verb, description, run] of [
    ['stop', 'hibernate: processes stop, files and conversation stay', runSessionStop],
    ['resume', 'start a stopped session again', runSessionResume],
    ['rm', 'delete a session and its sandbox (its branch stays)', runSessionRm],
  ] as const) {
    session
      .command(`${verb} <id>`)
      .description(description)
      .option(...PROJECT_FLAG)
      .option('--json', 'print the session')
      .action((id: string, options: SessionActionOptions) => run(id, options, deps()));
  }
}
