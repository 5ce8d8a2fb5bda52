/**
 * POST /v1/projects/:id/triggers/:slug/fire (contract §7): fire now, by hand, with an optional message. Needs
 * triggers.fire; the session acts as the person who fired it. Answered like the webhook receiver.
 */
import type { ActorContext } from '../context.js';
import { AppError } from '../errors.js';
import { readBool } from '../db/values.js';
import { loadTrigger } from './list-triggers.js';
import { recordFire } from './record-fire.js';
import { manualView, renderPrompt, templateShows } from './render-prompt.js';
import { definitionOf, type TriggerFireRow } from './trigger-row.js';

/** Where a manual fire's message came from, its prompt's `message.source`. */
export type ManualFireSource = 'api' | 'dashboard';

export async function fireTrigger(ctx: ActorContext, input: { projectId: string; slug: string; message?: string | undefined; messageSource?: ManualFireSource }): Promise<TriggerFireRow> {
  const { project, trigger: row } = await loadTrigger(ctx, input.projectId, input.slug, 'triggers.fire');
  const trigger = definitionOf(row);
  if (!readBool(row.enabled)) {
    throw new AppError('CONFLICT', `Trigger ${trigger.slug} is disabled (enabled: false in the manifest); enable it on ${project.default_branch} before firing it.`);
  }
  const firedAt = new Date().toISOString();
  let prompt = renderPrompt(trigger.prompt, manualView(trigger, { firedAt, actor: ctx.actor.userId, message: input.message ?? null, messageSource: input.messageSource ?? 'api' }));
  // A person's message reaches the agent even when the trigger's prompt has no place for it: after the prompt.
  if (input.message && !templateShows(trigger.prompt, 'message.text')) prompt = `${prompt}\n\n${input.message}`;
  return recordFire(ctx, { project, trigger, source: 'manual', prompt, actorUserId: ctx.actor.userId, firedAt });
}
