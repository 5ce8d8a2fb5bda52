import { Type, type TSchema } from 'typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const Status = Type.Union([
  Type.Literal('queued'),
  Type.Literal('branching'),
  Type.Literal('provisioning'),
  Type.Literal('running'),
  Type.Literal('stopped'),
  Type.Literal('failed'),
  Type.Literal('completed'),
]);

export const SessionParams = Type.Object({
  id: Type.String({ description: 'Project id (UUID)' }),
  sid: Type.String({ description: 'Session id (UUID)' }),
});

export const ProjectParams = Type.Object({ id: Type.String({ description: 'Project id (UUID)' }) });

/** Exactly the session keys of contract §6 (see presentSession). */
export const Session = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  status: Status,
  base_ref: Type.String(),
  branch: Type.String(),
  agent: Nullable(Type.String()),
  model: Nullable(Type.String()),
  trigger_slug: Nullable(Type.String()),
  created_by: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  last_activity_at: Nullable(Type.String()),
  error: Nullable(Type.String()),
  runtime_session_id: Nullable(Type.String()),
  sandbox: Type.Object({ provider: Nullable(Type.String()), state: Nullable(Type.String()) }),
});

export const SessionEnvelope = Type.Object({ session: Session });

export const ConversationEnvelope = Type.Object({
  source: Type.Union([Type.Literal('runtime'), Type.Literal('stored'), Type.Literal('prompts')], {
    description: 'runtime: read from the running sandbox; stored: svc’s copy taken when the sandbox last stopped; prompts: never captured, only what people and triggers sent',
  }),
  captured_at: Type.Union([Type.String(), Type.Null()]),
  omitted_messages: Type.Integer({ description: 'Oldest messages left out of svc’s copy to keep it within its bound' }),
  messages: Type.Array(Type.Unknown(), { description: 'The runtime’s messages, `{info: {id, role}, parts}`' }),
});

export const CreateSessionBody = Type.Object(
  {
    agent: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'The agent to run (default: default)' })),
    model: Type.Optional(Type.String({ minLength: 3, maxLength: 256, pattern: '^[^/\\s]+/\\S+$', description: '<provider>/<model>' })),
    prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 262_144, description: 'The first message, sent once the sandbox is up' })),
    base_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The branch to start from (default: the project default branch)' })),
  },
  { additionalProperties: false },
);

/** What `id_prefix` takes: the beginning of a session id, as the web pages and the CLI show one. */
export const SESSION_ID_PREFIX_PATTERN = '^[0-9a-fA-F-]{1,36}$';

export const ListSessionsQuery = Type.Object(
  {
    status: Type.Optional(Status),
    trigger: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'At most this many sessions (default 500)' })),
    before: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Only sessions older than this one: the previous page's next_before" })),
    id_prefix: Type.Optional(Type.String({ pattern: SESSION_ID_PREFIX_PATTERN, description: "Only sessions whose id begins with this (hex digits and dashes, as a session id is written); the CLI's short ids" })),
  },
  { additionalProperties: false },
);

export const SessionsPage = Type.Object({
  sessions: Type.Array(Session),
  next_before: Nullable(Type.String({ description: 'Pass as before for the next, older page; null on the page that holds the oldest' })),
});

export const MessageBody = Type.Object({ text: Type.String({ minLength: 1, maxLength: 262_144 }) }, { additionalProperties: false });

export const LeaseBody = Type.Object({ busy: Type.Boolean() }, { additionalProperties: false });

export const RuntimeSessionBody = Type.Object({ runtime_session_id: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });

export const CloneCredential = Type.Object({ username: Type.String(), password: Type.String(), url: Type.String(), expires_at: Type.String() });
