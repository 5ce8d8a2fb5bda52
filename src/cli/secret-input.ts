import type { Readable } from 'node:stream';
import { CliError, type CliDeps } from './deps.js';

/** A terminal's standard input: the one place a secret is typed, so the only one asked with a prompt. */
function terminalInput(stdin: Readable): (Readable & { isTTY: true; setRawMode(mode: boolean): unknown }) | null {
  const candidate = stdin as Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  return candidate.isTTY && typeof candidate.setRawMode === 'function' ? (candidate as Readable & { isTTY: true; setRawMode(mode: boolean): unknown }) : null;
}

/**
 * A secret value, never from the command line (where `ps` and shell history keep it): piped on standard
 * input (`printf %s "$KEY" | svc secret set NAME`; one trailing newline is dropped), or typed at a prompt
 * that does not echo it.
 */
export async function readSecretInput(deps: Pick<CliDeps, 'stdin' | 'stderr'>, prompt: string): Promise<string> {
  const terminal = terminalInput(deps.stdin);
  const value = terminal ? await promptWithoutEcho(terminal, deps, prompt) : await readAll(deps.stdin);
  if (value === '') throw new CliError(`The value is empty: ${terminal ? 'type it at the prompt' : 'pipe it on standard input, e.g. printf %s "$VALUE" | svc …'}.`, 2);
  return value;
}

async function readAll(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

function promptWithoutEcho(terminal: Readable & { setRawMode(mode: boolean): unknown }, deps: Pick<CliDeps, 'stderr'>, prompt: string): Promise<string> {
  // Echo goes off before the prompt shows: someone who types the moment they see it is never echoed.
  terminal.setRawMode(true);
  deps.stderr.write(prompt);
  terminal.setEncoding('utf8');
  terminal.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (outcome: () => void) => {
      terminal.setRawMode(false);
      terminal.pause();
      terminal.off('data', onData);
      deps.stderr.write('\n');
      outcome();
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish(() => resolve(typed));
        if (char === '\u0003') return finish(() => reject(new CliError('Cancelled; nothing was stored.', 1)));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    terminal.on('data', onData);
  });
}
