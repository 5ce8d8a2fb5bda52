/**
 * The daemon's settings, read once from its environment: spec 3's injected variables, plus the places
 * the process provider chooses per sandbox (a container has them fixed, so each has the spec's default).
 */
import path from 'node:path';

export interface DaemonSettings {
  projectId: string;
  sessionId: string;
  branchName: string;
  repoUrl: string;
  defaultBranch: string;
  baseRef: string;
  apiUrl: string;
  agentName: string;
  agentModel: string;
  initialPrompt: string;
  autoClone: boolean;
  sandboxToken: string;
  workspace: string;
  runtimeHome: string;
  runtimePort: number;
  servicePort: number;
  runtimeCommand: string;
  leaseRenewMs: number;
  /** A busy status with no runtime event for this long is checked against the conversation (stuck-busy watchdog). */
  leaseStuckMs: number;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}; it is "${raw}".`);
  return value;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): DaemonSettings {
  const sessionId = env.SVC_SESSION_ID ?? '';
  const leaseRenewMs = integer(env, 'SVC_LEASE_RENEW_MS', 20_000, 10, 3_600_000);
  return {
    projectId: env.SVC_PROJECT_ID ?? '',
    sessionId,
    branchName: env.SVC_BRANCH_NAME || sessionId,
    repoUrl: env.SVC_REPO_URL ?? '',
    defaultBranch: env.SVC_DEFAULT_BRANCH || 'main',
    baseRef: env.SVC_BASE_REF || env.SVC_DEFAULT_BRANCH || 'main',
    apiUrl: (env.SVC_API_URL ?? '').replace(/\/+$/, ''),
    agentName: env.SVC_AGENT_NAME || 'default',
    agentModel: env.SVC_AGENT_MODEL ?? '',
    initialPrompt: env.SVC_INITIAL_PROMPT ?? '',
    autoClone: env.SVC_PROJECT_AUTO_CLONE === '1',
    sandboxToken: env.SVC_SANDBOX_TOKEN || env.SVC_TOKEN || '',
    workspace: path.resolve(env.SVC_WORKSPACE || '/workspace'),
    runtimeHome: path.resolve(env.SVC_RUNTIME_HOME || '/opt/svc/home'),
    runtimePort: integer(env, 'SVC_RUNTIME_PORT', 4096, 1, 65535),
    servicePort: integer(env, 'SVC_SERVICE_PORT', 8000, 0, 65535),
    runtimeCommand: env.SVC_RUNTIME_COMMAND || 'opencode',
    leaseRenewMs,
    leaseStuckMs: integer(env, 'SVC_LEASE_STUCK_MS', Math.max(leaseRenewMs * 15, 1000), 10, 86_400_000),
  };
}
