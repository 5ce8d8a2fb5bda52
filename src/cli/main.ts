import { Command, CommanderError } from 'commander';
import { registerServe } from './serve.js';

const program = new Command('svc')
  .description('svc: control plane for coding agents (sessions, change requests, triggers, dashboards)')
  .showHelpAfterError('(run svc --help for usage)')
  .exitOverride();

registerServe(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version exit 0; usage errors exit 2 (commander already printed the message).
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    process.stderr.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
