import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError, type CliDeps } from './deps.js';

export interface StoredLogin {
  /** API base URL ending in /v1. */
  url: string;
  token: string;
}

export interface Credentials {
  apiUrl: string;
  token: string;
  source: 'environment' | 'login';
}

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'svc');
}

function loginFile(env: NodeJS.ProcessEnv): string {
  return path.join(configDir(env), 'config.json');
}

/** `http://host:8080`, `http://host:8080/`, `http://host:8080/v1` → `http://host:8080/v1`. */
export function normaliseApiUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`${JSON.stringify(url)} is not a URL; pass the server address, for example --url http://127.0.0.1:8080`, 2);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new CliError(`The URL must start with http:// or https:// (got ${url}).`, 2);
  const trimmed = `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
}

export function saveLogin(env: NodeJS.ProcessEnv, login: StoredLogin): string {
  const file = loginFile(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return file;
}

function readLogin(env: NodeJS.ProcessEnv): StoredLogin | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(loginFile(env), 'utf8')) as Partial<StoredLogin>;
    return typeof parsed.url === 'string' && typeof parsed.token === 'string' ? { url: parsed.url, token: parsed.token } : null;
  } catch {
    return null;
  }
}

/**
 * Inside a sandbox the environment carries SVC_API_URL and SVC_CLI_TOKEN (alias SVC_EXECUTOR_TOKEN);
 * elsewhere `svc login` stored them. SVC_TOKEN is the sandbox daemon's key and deliberately not read.
 */
export function resolveCredentials(deps: Pick<CliDeps, 'env'>): Credentials {
  const { env } = deps;
  const envToken = env.SVC_CLI_TOKEN || env.SVC_EXECUTOR_TOKEN;
  const stored = readLogin(env);
  if (env.SVC_API_URL && envToken) return { apiUrl: normaliseApiUrl(env.SVC_API_URL), token: envToken, source: 'environment' };
  if (stored) {
    return { apiUrl: normaliseApiUrl(env.SVC_API_URL || stored.url), token: envToken || stored.token, source: envToken ? 'environment' : 'login' };
  }
  const emptyVariable = (['SVC_CLI_TOKEN', 'SVC_EXECUTOR_TOKEN'] as const).find((name) => env[name] !== undefined && env[name]?.trim() === '');
  if (!envToken && emptyVariable) throw new CliError(`${emptyVariable} is set but empty: set it to a token (is the variable it was copied from set?), or unset it and run svc login.`);
  if (envToken) throw new CliError('SVC_CLI_TOKEN is set but SVC_API_URL is not; set SVC_API_URL to the server API (for example http://127.0.0.1:8080/v1) or run svc login.');
  throw new CliError('Not logged in: run svc login --url <server> --token <token>, or set SVC_API_URL and SVC_CLI_TOKEN.');
}
