import { Command, CommanderError } from 'commander';
import { registerCr } from './cr/index.js';
import { registerDashboard } from './dashboard.js';
import { CliError, processDeps } from './deps.js';
import { registerLink } from './link.js';
import { registerLogin } from './login.js';
import { registerProject } from './project.js';
import { registerSandbox } from './sandbox.js';
import { registerSecret } from './secret.js';
import { registerServe } from './serve.js';
import { registerSession } from './session/index.js';
import { registerToken } from './token.js';
import { registerTrigger } from './trigger/index.js';
import { registerUser } from './user.js';
import { packageVersion } from './version.js';

export function buildProgram(): Command {
  const program = new Command('svc')
    .description('svc: control plane for coding agents (sessions, change requests, triggers, dashboards)')
    .version(packageVersion(), '-V, --version', 'print the version of svc')
    // `svc --version` is the program's; `svc dashboard show x --version 2` stays the subcommand's own option.
    .enablePositionalOptions()
    .showHelpAfterError('(run svc --help for usage)')
    .exitOverride();
  const deps = processDeps;
  registerServe(program);
  registerLogin(program, deps);
  registerProject(program, deps);
  registerToken(program, deps);
  registerSecret(program, deps);
  registerUser(program, deps);
  registerDashboard(program, deps);
  registerCr(program, deps);
  registerSession(program, deps);
  registerTrigger(program, deps);
  registerLink(program, deps);
  registerSandbox(program);
  handOverErrors(program, ['svc']);
  return program;
}

/** Every command throws its errors to the catch below, and a usage error points at that command's own help. */
function handOverErrors(command: Command, names: string[]): void {
  for (const sub of command.commands) {
    const path = [...names, sub.name()];
    sub.exitOverride().showHelpAfterError(`(run ${path.join(' ')} --help for usage)`);
    handOverErrors(sub, path);
  }
}

// A reader that stops early (`svc dashboard ls | head -1`) closes the pipe: it has what it wanted, so
// the command ends quietly, as Unix tools do, instead of crashing on the next write.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version exit 0; usage errors exit 2 (commander already printed the message).
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof CliError) {
    process.stderr.write(`svc: ${error.message}\n`);
    for (const line of error.details) process.stderr.write(`${line}\n`);
    process.exitCode = error.exitCode;
  } else {
    process.stderr.write(`svc: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
}
