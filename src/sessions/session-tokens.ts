/**
 * A session's two credentials (spec 3): the sandbox token (the daemon's own identity: bearer of the
 * sandbox-identity routes and key of X-Svc-User-Context) and the CLI token (a project token acting as the
 * launching user, for `svc` inside the sandbox). Every boot of the sandbox injects them again, and any
 * replica must sign X-Svc-User-Context with the sandbox token, so their values are derived from the
 * installation's secret key and the session id rather than stored: the database keeps only their hashes,
 * like every other token's.
 */
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';

const KEY_FILE = 'secret-key';

/** SVC_SECRET_KEY, else `<data dir>/secret-key` (made once, mode 0600; replicas share the data directory). */
export function loadSecretKey(config: Pick<Config, 'dataDir' | 'sessions'>): string {
  if (config.sessions.secretKey) return config.sessions.secretKey;
  const file = path.join(config.dataDir, KEY_FILE);
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return fs.readFileSync(file, 'utf8').trim();
}

function derive(secretKey: string, purpose: string, sessionId: string): string {
  return createHmac('sha256', secretKey).update(`svc ${purpose} ${sessionId}`, 'utf8').digest('base64url');
}

export function sandboxTokenOf(secretKey: string, sessionId: string): string {
  return `svc_s_${derive(secretKey, 'sandbox token', sessionId)}`;
}

export function cliTokenOf(secretKey: string, sessionId: string): string {
  return `svc_p_${derive(secretKey, 'cli token', sessionId)}`;
}
