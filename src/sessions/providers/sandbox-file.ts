/**
 * `<root>/<session id>/sandbox.json`: what a provider whose sandboxes run on this machine (process,
 * bubblewrap) must know of a running sandbox after svc restarts: its leader's pid and where it answers.
 */
import fs from 'node:fs';
import path from 'node:path';

export class SandboxFiles<T extends { pid: number }> {
  constructor(private readonly root: string) {}

  directory(sessionId: string): string {
    return path.join(this.root, sessionId);
  }

  /** The sandbox's record, or null when it never started or its directory is gone. */
  read(sessionId: string): T | null {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.directory(sessionId), 'sandbox.json'), 'utf8')) as T;
    } catch {
      return null;
    }
  }

  write(sessionId: string, file: T): void {
    fs.writeFileSync(path.join(this.directory(sessionId), 'sandbox.json'), JSON.stringify(file), { mode: 0o600 });
  }

  /** Session ids that have a sandbox directory. */
  sessions(): string[] {
    return fs.existsSync(this.root) ? fs.readdirSync(this.root) : [];
  }
}

/** Why a sandbox on this machine is no longer running, for the session's `error`: its log's last line says how it ended. */
export function sandboxEndedReason(directory: string): string {
  let last = '';
  try {
    const log = fs.readFileSync(path.join(directory, 'sandbox.log'), 'utf8');
    last = log.slice(-4096).split('\n').map((line) => line.trim()).filter(Boolean).pop() ?? '';
  } catch {
    // No log: it never started here.
  }
  return `The sandbox stopped running: its processes are gone (killed, crashed, or the machine restarted)${last ? `; the last line of its log: ${last.slice(0, 300)}` : ''}. Resume the session to start it again with its files.`;
}
