import type { Readable } from 'node:stream';

/** What a command needs from the outside world, passed in so tests can run it as a terminal or a pipe. */
export interface CliDeps {
  env: NodeJS.ProcessEnv;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** stdout is a terminal: tables, colour and relative times; otherwise stable tab-separated columns. */
  isTTY: boolean;
  stdin: Readable;
  cwd: string;
  now: () => Date;
}

export function processDeps(): CliDeps {
  return {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY: Boolean(process.stdout.isTTY),
    stdin: process.stdin,
    cwd: process.cwd(),
    now: () => new Date(),
  };
}

/** A failure the user can act on; `exitCode` 1 for failures, 2 for usage errors. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
    /** Extra lines printed after the message (for example one line per validation issue). */
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = 'CliError';
  }
}
