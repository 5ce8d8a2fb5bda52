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
import { StaleTargetError, type FireBatch } from './fire-batch.js';
import { renderPrompt, webhookView } from './render-prompt.js';
import type { TriggerFireRow } from './trigger-row.js';
import { verifyWebhook } from './verify-webhook.js';
import type { WebhookTarget, WebhookTargets } from './webhook-targets.js';

const slugPattern = new RegExp(TRIGGER_SLUG_PATTERN);
const MAX_DELIVERY_ID_LENGTH = 200;
/** Checks of one delivery against a set or secret that keeps changing under it, before it is answered 500. */
const MAX_ATTEMPTS = 3;

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
  const projectId = delivery.projectId.toLowerCase();
  let found = await receiver.targets.find(projectId, delivery.slug);
  for (let attempt = 1; ; attempt += 1) {
    const refusal = refusalOf(found, delivery);
    // Refused only on what the database says: what memory held may be out of date (a secret just rotated).
    if (refusal && found?.fresh === false) {
      found = await receiver.targets.find(projectId, delivery.slug, { fresh: true });
      continue;
    }
    if (refusal || !found) throw refusal;
    const { project, trigger } = found;
    const firedAt = new Date().toISOString();
    const deliveryId = (header(delivery.headers, 'x-github-delivery') ?? header(delivery.headers, 'webhook-id'))?.trim().slice(0, MAX_DELIVERY_ID_LENGTH) || null;
    const prompt = renderPrompt(trigger.prompt, webhookView(trigger, { firedAt, rawBody: delivery.rawBody, headers: delivery.headers }));
    try {
      return await receiver.fires.record({ project, trigger, source: 'webhook', prompt, actorUserId: project.created_by, firedAt, deliveryId, target: found });
    } catch (error) {
      // The set or the secret changed while the delivery was checked: checked again against the new ones.
      if (!(error instanceof StaleTargetError) || attempt >= MAX_ATTEMPTS) throw error;
      found = await receiver.targets.find(projectId, delivery.slug, { fresh: true });
    }
  }
}

/** Why the delivery is refused by what `found` says (404, 409, 401), or null when it is accepted. */
function refusalOf(found: WebhookTarget | null, delivery: WebhookDelivery): AppError | null {
  // One answer for every kind of absence, so the receiver does not tell which projects exist.
  if (!found) return new AppError('NOT_FOUND', `No enabled webhook trigger ${JSON.stringify(delivery.slug)} in this project's manifest on its default branch.`);
  const { project, trigger, secret } = found;
  if (secret === null || secret === '') {
    return new AppError('CONFLICT', `The secret ${trigger.secret_env} named by this trigger's secret_env is not set; set it with svc secret set ${trigger.secret_env} --project ${project.id}, or PUT /v1/projects/${project.id}/secrets/${trigger.secret_env}.`);
  }
  const check = verifyWebhook(secret, delivery.rawBody, delivery.headers);
  return check.ok ? null : new AppError('UNAUTHENTICATED', check.message);
}
