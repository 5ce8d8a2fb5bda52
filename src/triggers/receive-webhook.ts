/**
 * POST /v1/webhooks/projects/<project_id>/<slug> (spec 3, contract §7). The answers, in the order they are
 * decided: 400 for a malformed id or slug, 404 for no such (enabled, webhook) trigger, 409 when its
 * secret_env secret is not set, 401 for a missing or wrong signature or token, 202 `duplicate` for a repeated
 * delivery within 24 h, else the fire is recorded and answered 202 `fired` or `queued`; its session starts
 * after the answer.
 */
import type { Services } from '../context.js';
import { AppError } from '../errors.js';
import { isUuid } from '../ids.js';
import { TRIGGER_SLUG_PATTERN } from '../manifest/index.js';
import type { FireBatch } from './fire-batch.js';
import { renderPrompt, webhookView } from './render-prompt.js';
import type { TriggerFireRow } from './trigger-row.js';
import { verifyWebhook } from './verify-webhook.js';
import type { WebhookTargets } from './webhook-targets.js';

const slugPattern = new RegExp(TRIGGER_SLUG_PATTERN);
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

export interface WebhookReceiver {
  targets: WebhookTargets;
  /** Deliveries that arrive together are recorded together (fire-batch.ts). */
  fires: FireBatch;
}

export async function receiveWebhook(services: Services, receiver: WebhookReceiver, delivery: WebhookDelivery): Promise<TriggerFireRow> {
  if (!isUuid(delivery.projectId)) {
    throw new AppError('BAD_REQUEST', `The project id ${JSON.stringify(delivery.projectId.slice(0, 80))} in the webhook URL is not a UUID; copy the URL from svc trigger ls.`);
  }
  if (!slugPattern.test(delivery.slug)) {
    throw new AppError('BAD_REQUEST', `The trigger slug ${JSON.stringify(delivery.slug.slice(0, 80))} in the webhook URL is not a slug (lowercase letters, digits, "-" and "_").`);
  }
  const found = await receiver.targets.find(delivery.projectId.toLowerCase(), delivery.slug);
  // One answer for every kind of absence, so the receiver does not tell which projects exist.
  if (!found) throw new AppError('NOT_FOUND', `No enabled webhook trigger ${JSON.stringify(delivery.slug)} in this project's manifest on its default branch.`);
  const { project, trigger, secret } = found;
  if (secret === null || secret === '') {
    throw new AppError('CONFLICT', `The secret ${trigger.secret_env} named by this trigger's secret_env is not set; set it with PUT /v1/projects/${project.id}/secrets/${trigger.secret_env}.`);
  }
  const check = verifyWebhook(secret, delivery.rawBody, delivery.headers);
  if (!check.ok) throw new AppError('UNAUTHENTICATED', check.message);

  const firedAt = new Date().toISOString();
  const deliveryId = (header(delivery.headers, 'x-github-delivery') ?? header(delivery.headers, 'webhook-id'))?.trim().slice(0, MAX_DELIVERY_ID_LENGTH) || null;
  const prompt = renderPrompt(trigger.prompt, webhookView(trigger, { firedAt, rawBody: delivery.rawBody, headers: delivery.headers }));
  return receiver.fires.record({ project, trigger, source: 'webhook', prompt, actorUserId: project.created_by, firedAt, deliveryId });
}
