/**
 * `svc-agent git-credential get`: a git credential helper that asks the svc API for a short-lived clone
 * credential each time git needs one, so no token is ever stored in `.git/config` or elsewhere on disk.
 * It answers only for the project's repository host; `store` and `erase` are ignored.
 */
import { ApiClient } from './api-client.js';
import type { DaemonSettings } from './settings.js';

/** Parses git's credential protocol (key=value lines). */
export function parseCredentialRequest(input: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of input.split('\n')) {
    const index = line.indexOf('=');
    if (index > 0) fields[line.slice(0, index)] = line.slice(index + 1).replace(/\r$/, '');
  }
  return fields;
}

function sameOrigin(request: Record<string, string>, repoUrl: string): boolean {
  try {
    const repo = new URL(repoUrl);
    return request.protocol === repo.protocol.replace(/:$/, '') && request.host === repo.host;
  } catch {
    return false;
  }
}

export async function gitCredential(operation: string | undefined, input: string, settings: DaemonSettings, output: (text: string) => void): Promise<number> {
  if (operation !== 'get') return 0;
  const request = parseCredentialRequest(input);
  if (!sameOrigin(request, settings.repoUrl)) return 0;
  const credential = await new ApiClient(settings).cloneCredential();
  if (/[\n\0]/.test(credential.username + credential.password)) throw new Error('The clone credential from the svc API contains a newline; refusing it.');
  output(`username=${credential.username}\npassword=${credential.password}\n`);
  return 0;
}

/** Quotes one word for the shell git runs `!` credential helpers with. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The helper as git configuration: this very program, run with `git-credential`. */
export function credentialHelperCommand(): string {
  const script = process.argv[1] ?? '';
  return `!${shellQuote(process.execPath)} ${shellQuote(script)} git-credential`;
}
