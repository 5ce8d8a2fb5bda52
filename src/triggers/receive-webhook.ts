/**
 * POST /v1/webhooks/projects/<project_id>/<slug> (spec 3, contract §7). The answers, in the order they are
 * decided: 400 for a malformed id or slug, 404 for no such (enabled, webhook) trigger, 409 when its
 * secret_env secret is not set, 401 for a missing or wrong signature or token, 202 `duplicate` for a repeated
 * delivery within 24 h, else the fire is recorded and answered 202 `fired` or `queued`; its session starts
 * after the answer.
 */
import type { Services } from '../context.js';
import { readSecretValue } from '../accounts/secrets.js';
import { readBool } from '../db/values.js';
import { AppError } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { TRIGGER_SLUG_PATTERN } from '../manifest/index.js';
import { recordFire } from './record-fire.js';
import { renderPrompt, webhookView } from './render-prompt.js';
import { definitionOf, type TriggerFireRow } from './trigger-row.js';
import { verifyWebhook } from './verify-webhook.js';

const slugPattern = new RegExp(TRIGGER_SLUG_PATTERN);
const DUPLICATE_WINDOW_MS = 24 * 3_600_000;
const MAX_DELIVERY_ID_LENGTH = 200;

export interface WebhookDelivery {
  projectId: string;
  slug: string;
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

function header(headers: WebhookDelivery['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export async function receiveWebhook(services: Services, delivery: WebhookDelivery): Promise<TriggerFireRow> {
  if (!isUuid(delivery.projectId)) {
    throw new AppError('BAD_REQUEST', `The project id ${JSON.stringify(delivery.projectId.slice(0, 80))} in the webhook URL is not a UUID; copy the URL from svc trigger ls.`);
  }
  if (!slugPattern.test(delivery.slug)) {
    throw new AppError('BAD_REQUEST', `The trigger slug ${JSON.stringify(delivery.slug.slice(0, 80))} in the webhook URL is not a slug (lowercase letters, digits, "-" and "_").`);
  }
  const projectId = delivery.projectId.toLowerCase();
  const project = await services.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
  const row = project
    ? await services.db.selectFrom('triggers').selectAll().where('project_id', '=', project.id).where('slug', '=', delivery.slug).executeTakeFirst()
    : undefined;
  // One answer for every kind of absence, so the receiver does not tell which projects exist.
  if (!project || !row || row.type !== 'webhook' || !readBool(row.enabled)) {
    throw new AppError('NOT_FOUND', `No enabled webhook trigger ${JSON.stringify(delivery.slug)} in this project's manifest on its default branch.`);
  }
  const trigger = definitionOf(row);
  if (trigger.type !== 'webhook') throw new AppError('NOT_FOUND', `Trigger ${JSON.stringify(delivery.slug)} is not a webhook trigger.`);
  const secret = await readSecretValue(services, project.id, trigger.secret_env);
  if (secret === null || secret === '') {
    throw new AppError('CONFLICT', `The secret ${trigger.secret_env} named by this trigger's secret_env is not set; set it with PUT /v1/projects/${project.id}/secrets/${trigger.secret_env}.`);
  }
  const check = verifyWebhook(secret, delivery.rawBody, delivery.headers);
  if (!check.ok) throw new AppError('UNAUTHENTICATED', check.message);

  const firedAt = new Date().toISOString();
  const deliveryId = (header(delivery.headers, 'x-github-delivery') ?? header(delivery.headers, 'webhook-id'))?.trim().slice(0, MAX_DELIVERY_ID_LENGTH) || null;
  if (deliveryId) {
    const earlier = await services.db
      .selectFrom('trigger_fires')
      .select(['id', 'session_id', 'fired_at'])
      .where('project_id', '=', project.id)
      .where('trigger_slug', '=', trigger.slug)
      .where('delivery_id', '=', deliveryId)
      .executeTakeFirst();
    if (earlier && Date.parse(earlier.fired_at) > Date.now() - DUPLICATE_WINDOW_MS) return recordDuplicate(services, project, trigger.slug, trigger.session_mode, earlier.session_id, firedAt);
    // Older than the window: the id may be used again, by this delivery.
    if (earlier) await services.db.updateTable('trigger_fires').set({ delivery_id: null }).where('id', '=', earlier.id).execute();
  }
  const prompt = renderPrompt(trigger.prompt, webhookView(trigger, { firedAt, rawBody: delivery.rawBody, headers: delivery.headers }));
  try {
    return await recordFire(services, { project, trigger, source: 'webhook', prompt, actorUserId: project.created_by, firedAt, deliveryId });
  } catch (error) {
    // Two copies of one delivery at once: the unique delivery id lets one in; the other is its duplicate.
    if (deliveryId) {
      const winner = await services.db.selectFrom('trigger_fires').select('session_id').where('project_id', '=', project.id).where('trigger_slug', '=', trigger.slug).where('delivery_id', '=', deliveryId).executeTakeFirst();
      if (winner) return recordDuplicate(services, project, trigger.slug, trigger.session_mode, winner.session_id, firedAt);
    }
    throw error;
  }
}

/** A repeated delivery is listed among the fires (status duplicate) and starts nothing. */
async function recordDuplicate(
  services: Services,
  project: { id: string; account_id: string; created_by: string },
  slug: string,
  sessionMode: string,
  sessionId: string | null,
  firedAt: string,
): Promise<TriggerFireRow> {
  const row: TriggerFireRow = {
    id: newId(),
    project_id: project.id,
    account_id: project.account_id,
    trigger_slug: slug,
    source: 'webhook',
    status: 'duplicate',
    session_id: sessionId,
    session_mode: sessionMode,
    target: 'existing',
    fallback: null,
    reason: 'a delivery with the same id arrived within the last 24 hours',
    prompt: '',
    agent: null,
    model: null,
    actor_user_id: project.created_by,
    delivery_id: null,
    fired_at: firedAt,
    due_at: null,
    started_at: firedAt,
    claimed_by: null,
    claimed_until: null,
    attempts: 0,
  };
  await services.db.insertInto('trigger_fires').values(row).execute();
  return row;
}
