/** What the `svc session` commands share: the API's session shape, the project, and `<id>` checks. */
import type { Static } from 'typebox';
import { isUuid } from '../../ids.js';
import type { Session as SessionSchema } from '../../sessions/schemas.js';
import { ApiClient } from '../api-client.js';
import { resolveCredentials, type Credentials } from '../cli-config.js';
import { CliError, type CliDeps } from '../deps.js';
import { resolveProjectRef } from '../project-ref.js';

export type Session = Static<typeof SessionSchema>;

export interface SessionClient {
  client: ApiClient;
  credentials: Credentials;
  projectId: string;
  base: string;
}

export async function sessionClient(options: { project?: string | undefined }, deps: CliDeps): Promise<SessionClient> {
  const credentials = resolveCredentials(deps);
  const client = new ApiClient(credentials);
  const projectId = await resolveProjectRef(client, options.project, deps);
  return { client, credentials, projectId, base: `/v1/projects/${projectId}/sessions` };
}

/** A session id is a UUID; anything else is a usage error (exit 2) before any request. */
export function sessionPath(base: string, id: string, action?: string): string {
  const trimmed = id.trim();
  if (!isUuid(trimmed)) throw new CliError(`${JSON.stringify(id)} is not a session id; svc session ls lists them.`, 2);
  return `${base}/${trimmed.toLowerCase()}${action ? `/${action}` : ''}`;
}

/** The shortest beginning of an id taken for the whole, as the web pages show one ("session 5c040991"). */
const MIN_PREFIX_LENGTH = 4;
const ID_PREFIX = /^[0-9a-f][0-9a-f-]*$/;
/** The matching sessions an ambiguous beginning lists, for the user to pick from. */
const AMBIGUOUS_SHOWN = 10;

/**
 * The id of the session `id` names: a whole id as it is, or the beginning of one (at least four characters, as the web
 * pages and svc session ls show them) when exactly one of the project's sessions starts with it.
 */
export async function resolveSessionId({ client, base }: Pick<SessionClient, 'client' | 'base'>, id: string): Promise<string> {
  const trimmed = id.trim().toLowerCase();
  if (isUuid(trimmed)) return trimmed;
  if (!ID_PREFIX.test(trimmed) || trimmed.length < MIN_PREFIX_LENGTH) {
    throw new CliError(`${JSON.stringify(id)} is not a session id, nor the beginning of one (at least ${MIN_PREFIX_LENGTH} of its characters); svc session ls lists them.`, 2);
  }
  const { body } = await client.request<{ sessions: Session[]; next_before: string | null }>('GET', `${base}?id_prefix=${trimmed}&limit=${AMBIGUOUS_SHOWN}`);
  const matches = body.sessions.map((session) => session.id);
  if (matches.length === 0) throw new CliError(`No session of this project has an id beginning with ${JSON.stringify(trimmed)}; svc session ls lists them.`);
  if (matches.length > 1) {
    const listed = `${matches.join(', ')}${body.next_before ? ', …' : ''}`;
    throw new CliError(`${JSON.stringify(trimmed)} begins the ids of more than one session (${listed}); give more of the id.`, 2);
  }
  return matches[0]!;
}

export function describeSession(session: Session): string {
  return `${session.id} ${session.status}${session.error ? `: ${session.error}` : ''}`;
}
