/**
 * The environment injected into a sandbox at every boot (spec 3, "Injected environment"): exactly the
 * table's variables with their stated values, next to the project's secrets as plain variables.
 */
import { createHash } from 'node:crypto';
import type { ProjectRow } from '../accounts/access.js';
import { cloneUrl } from '../projects/presenters.js';
import type { Services } from '../context.js';
import type { SessionRow } from './session-row.js';
import { cliTokenOf, sandboxTokenOf } from './session-tokens.js';

/** The daemon's external port inside an isolating sandbox; the process provider sets a free one. */
export const DAEMON_PORT = 8000;

export async function sandboxEnvironment(services: Services & { secretKey: string }, project: ProjectRow, session: SessionRow): Promise<Record<string, string>> {
  const secrets = await services.db.selectFrom('secrets').select(['name', 'value', 'updated_at']).where('project_id', '=', project.id).orderBy('name').execute();
  const revision = createHash('sha256')
    .update(secrets.map((secret) => `${secret.name}\u0000${secret.updated_at}`).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const sandboxToken = sandboxTokenOf(services.secretKey, session.id);
  const cliToken = cliTokenOf(services.secretKey, session.id);
  const env: Record<string, string> = {};
  // Secrets first: no secret can shadow a variable of svc's (their names cannot start with SVC_ anyway).
  for (const secret of secrets) env[secret.name] = secret.value;
  Object.assign(env, {
    SVC_PROJECT_ID: project.id,
    SVC_SESSION_ID: session.id,
    SVC_BRANCH_NAME: session.branch,
    SVC_REPO_URL: cloneUrl(project, services.config),
    SVC_DEFAULT_BRANCH: project.default_branch,
    SVC_BASE_REF: session.base_ref,
    SVC_SERVICE_PORT: String(DAEMON_PORT),
    SVC_API_URL: `${services.config.baseUrl}/v1`,
    SVC_AGENT_NAME: session.agent ?? 'default',
    SVC_PROJECT_AUTO_CLONE: '1',
    SVC_PROJECT_SECRET_NAMES: secrets.map((secret) => secret.name).join(','),
    SVC_PROJECT_SECRETS_REVISION: revision,
    SVC_SANDBOX_TOKEN: sandboxToken,
    SVC_TOKEN: sandboxToken,
    SVC_CLI_TOKEN: cliToken,
    SVC_EXECUTOR_TOKEN: cliToken,
    SVC_BOOTSTRAP_RUNTIME_SESSION: '1',
  });
  if (session.model) env.SVC_AGENT_MODEL = session.model;
  // Sent once per session: a resume after the runtime took it does not send it again.
  if (session.initial_prompt && !session.initial_prompt_sent_at) env.SVC_INITIAL_PROMPT = session.initial_prompt;
  return env;
}
