import { Type, type TSchema } from 'typebox';
import { DEFAULT_FIRES_PER_PAGE, MAX_FIRES_PER_PAGE } from './trigger-row.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ProjectParams = Type.Object({ id: Type.String({ description: 'Project id (UUID)' }) });
export const TriggerParams = Type.Object({ id: Type.String({ description: 'Project id (UUID)' }), slug: Type.String({ description: 'Trigger slug' }) });

export const Trigger = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  type: Type.Union([Type.Literal('cron'), Type.Literal('webhook')]),
  enabled: Type.Boolean(),
  session_mode: Type.String(),
  session_id: Nullable(Type.String()),
  cron: Nullable(Type.String()),
  run_at: Nullable(Type.String()),
  timezone: Nullable(Type.String()),
  agent: Type.String(),
  model: Nullable(Type.String()),
  last_fired_at: Nullable(Type.String()),
  next_fire_at: Nullable(Type.String()),
});

export const TriggerListing = Type.Object({
  triggers: Type.Array(Trigger),
  errors: Type.Array(Type.Object({ index: Nullable(Type.Integer()), slug: Nullable(Type.String()), message: Type.String() })),
  manifest: Type.Object({ path: Nullable(Type.String()), commit: Nullable(Type.String()) }),
});

export const Fire = Type.Object({
  id: Type.String(),
  source: Type.Union([Type.Literal('cron'), Type.Literal('webhook'), Type.Literal('manual')]),
  status: Type.Union([Type.Literal('fired'), Type.Literal('queued'), Type.Literal('duplicate'), Type.Literal('failed')]),
  session_id: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  fallback: Nullable(Type.String({ description: 'The session-mode fallback taken, when the pinned or reusable session was not there' })),
  fired_at: Type.String(),
});

export const FiresPage = Type.Object({
  fires: Type.Array(Fire),
  next_before: Nullable(Type.String({ description: 'Pass as before for the next, older page; null on the page that holds the oldest kept' })),
});

export const FireAnswer = Type.Object(
  {
    status: Type.Union([Type.Literal('fired'), Type.Literal('queued'), Type.Literal('duplicate'), Type.Literal('failed')]),
    session_id: Nullable(Type.String()),
    reason: Type.Optional(Type.String()),
    fire_id: Type.String(),
  },
  { description: '`fired` with the session it starts or re-prompts, `queued` with why it waits, or `duplicate` of an earlier delivery' },
);

export const FireBody = Type.Object(
  { message: Type.Optional(Type.String({ maxLength: 262_144, description: 'Passed to the prompt as {{ message.text }}' })) },
  { additionalProperties: false },
);

export const FiresQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_FIRES_PER_PAGE, description: `At most this many fires (default ${DEFAULT_FIRES_PER_PAGE})` })),
    before: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Only fires older than this one: the previous page's next_before" })),
  },
  { additionalProperties: false },
);
