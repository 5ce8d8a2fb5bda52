/**
 * The canonical manifest schema (spec 3 "Trigger", spec 2 "Merge mechanics").
 *
 * Two schemas live here:
 * - the *document* schema: what a person may write in `svc.yaml` / `svc.toml`, aliases included. It is
 *   a faithful JSON Schema of the structure (keys, types, patterns, enums) that editors can use; the rules
 *   that JSON Schema states badly (exactly one of cron/run_at, a key given both as canonical and alias,
 *   agent references, unique slugs, cron syntax, paths that leave the repository) are checked in
 *   `parse-manifest.ts`, which is the only validator the product runs.
 * - the *normalized* schema: what `parseManifest` returns, aliases resolved and defaults applied.
 *   Consumers (merge gate, scheduler, webhook receiver, listings) only ever see this shape.
 *
 * Decisions where spec 3 leaves room:
 * - `agents` is a map of agent name → `{ description?, model?, prompt? }` (the body may be empty). Only
 *   these keys: settings specific to the agent runtime belong in the runtime's own config under
 *   `runtime.config_dir`, and an unknown key here is far more often a typo than an intent.
 * - `env` is a list of `{ name, required?, description? }`; a bare name is shorthand for
 *   `{ name, required: false }`. A list keeps the order the environment-variables screen shows.
 * - `run_at` must carry an explicit `Z` or UTC offset and is normalized to a UTC instant. A local time
 *   would be ambiguous around DST changes, and `timezone` stays a property of cron expressions.
 * - `sandbox` holds per-project sandbox settings as people write them in devcontainer.json or compose files:
 *   `memory: 2g`, `cpus: 1.5`, `pids: 512`, `image: { dockerfile: .svc/sandbox/Dockerfile }`. Memory needs
 *   its unit (a bare `2048` could be bytes or megabytes); the server's maximums are checked beside the
 *   parse (sandbox-section.ts), since they are configuration, not part of the file.
 * - Unknown top-level keys are issues (a typo such as `trigger:` would otherwise silently drop every
 *   trigger); `version: 1` is the one extra key accepted, for manifests that want to say which format
 *   they follow.
 */
import { Type, type Static, type TSchema } from 'typebox';

/** Spec 3: 1-128 characters, lowercase URL-safe. */
export const TRIGGER_SLUG_PATTERN = '^[a-z0-9][a-z0-9_-]{0,127}$';
/** Environment variable names, as project secrets name them (contract §4). */
export const ENV_NAME_PATTERN = '^[A-Z_][A-Z0-9_]*$';
/** The prefix svc keeps for its own injected variables; a project secret cannot use it. */
export const RESERVED_ENV_PREFIX = 'SVC_';
/** `<provider>/<model>`; the model part may itself contain slashes (`openrouter/anthropic/claude`). */
export const MODEL_PATTERN = '^[^/\\s]+/\\S+$';
/** Agent names become `SVC_AGENT_NAME` and runtime file names: keep them to a safe, readable set. */
export const AGENT_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';
/** Session ids are UUIDs (spec 3). */
export const SESSION_ID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const TRIGGER_TYPES = ['cron', 'webhook'] as const;
export const SESSION_MODES = ['fresh', 'reuse', 'pinned'] as const;

export const DEFAULT_AGENT_NAME = 'default';
export const DEFAULT_SESSION_MODE = 'fresh';
export const DEFAULT_TIMEZONE = 'UTC';
export const DEFAULT_RUNTIME_CONFIG_DIR = '.svc/runtime';

/** Alias → canonical trigger field (spec 3 "Versioning" 3). Each canonical field has at most one alias. */
export const TRIGGER_FIELD_ALIASES = {
  prompt_template: 'prompt',
  agent_name: 'agent',
  sessionMode: 'session_mode',
  sessionId: 'session_id',
  schedule: 'cron',
  runAt: 'run_at',
  secretEnv: 'secret_env',
} as const;

/** `fresh` matched without regard to case, in a dialect every JSON Schema engine understands. */
function caseInsensitiveChoice(words: readonly string[]): string {
  const letters = (word: string) =>
    [...word].map((char) => `[${char.toLowerCase()}${char.toUpperCase()}]`).join('');
  return `^(?:${words.map(letters).join('|')})$`;
}

// ── The document a person writes ─────────────────────────────────────────────────────────────────

const SlugField = Type.String({ pattern: TRIGGER_SLUG_PATTERN, description: 'Unique id of the trigger; used in the webhook URL.' });
const PromptField = Type.String({ minLength: 1, description: 'Mustache template of the first message; may be multi-line.' });
const AgentField = Type.String({ pattern: AGENT_NAME_PATTERN });
const ModelField = Type.String({ pattern: MODEL_PATTERN, description: '`<provider>/<model>`' });
const SessionModeField = Type.String({ pattern: caseInsensitiveChoice(SESSION_MODES), description: 'fresh, reuse or pinned (any case)' });
const SessionIdField = Type.String({ pattern: SESSION_ID_PATTERN });
const CronField = Type.String({ minLength: 1, description: 'Six fields: second minute hour day month weekday.' });
const RunAtField = Type.String({ minLength: 1, description: 'ISO-8601 date and time with Z or an offset, e.g. 2025-07-01T09:00:00Z.' });
const TimezoneField = Type.String({ minLength: 1, description: 'IANA zone name, e.g. Europe/Paris.' });
const SecretEnvField = Type.String({ pattern: ENV_NAME_PATTERN, description: 'Name of the project secret holding the HMAC secret.' });

const commonTriggerEntryFields = {
  slug: SlugField,
  prompt: Type.Optional(PromptField),
  prompt_template: Type.Optional(PromptField),
  name: Type.Optional(Type.String({ minLength: 1 })),
  agent: Type.Optional(AgentField),
  agent_name: Type.Optional(AgentField),
  model: Type.Optional(ModelField),
  session_mode: Type.Optional(SessionModeField),
  sessionMode: Type.Optional(SessionModeField),
  session_id: Type.Optional(SessionIdField),
  sessionId: Type.Optional(SessionIdField),
  enabled: Type.Optional(Type.Boolean()),
};

export const CronTriggerEntrySchema = Type.Object(
  {
    ...commonTriggerEntryFields,
    type: Type.Literal('cron'),
    cron: Type.Optional(CronField),
    schedule: Type.Optional(CronField),
    run_at: Type.Optional(RunAtField),
    runAt: Type.Optional(RunAtField),
    timezone: Type.Optional(TimezoneField),
  },
  { additionalProperties: false },
);

export const WebhookTriggerEntrySchema = Type.Object(
  {
    ...commonTriggerEntryFields,
    type: Type.Literal('webhook'),
    secret_env: Type.Optional(SecretEnvField),
    secretEnv: Type.Optional(SecretEnvField),
  },
  { additionalProperties: false },
);

export const TriggerEntrySchema = Type.Union([CronTriggerEntrySchema, WebhookTriggerEntrySchema]);

export const AgentEntrySchema = Type.Object(
  {
    description: Type.Optional(Type.String()),
    model: Type.Optional(ModelField),
    prompt: Type.Optional(Type.String({ description: 'Instructions (system prompt) of the agent.' })),
  },
  { additionalProperties: false },
);

export const EnvEntrySchema = Type.Object(
  {
    name: Type.String({ pattern: ENV_NAME_PATTERN }),
    required: Type.Optional(Type.Boolean()),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** `2g`, `512m`, `1.5GiB`: a number with a binary unit (k, m, g, t), as Docker writes memory. */
export const MEMORY_SIZE_PATTERN = '^\\s*\\d+(?:\\.\\d+)?\\s*[kKmMgGtT](?:[iI]?[bB])?\\s*$';
/** A sandbox below this cannot hold its daemon and the agent runtime. */
export const MIN_SANDBOX_MEMORY_MB = 64;
export const MIN_SANDBOX_CPUS = 0.1;
/** Processes the entrypoint, daemon, runtime, a shell and git need together. */
export const MIN_SANDBOX_PIDS = 64;
/** A filesystem smaller than this holds little more than its own journal. */
export const MIN_SANDBOX_DISK_MB = 64;

export const SandboxImageSchema = Type.Object(
  {
    dockerfile: Type.String({
      minLength: 1,
      description: 'Dockerfile relative to the repository root, e.g. .svc/sandbox/Dockerfile; its directory is the build context. Docker provider only.',
    }),
  },
  { additionalProperties: false },
);

export const SandboxSectionSchema = Type.Object(
  {
    memory: Type.Optional(Type.String({ pattern: MEMORY_SIZE_PATTERN, description: 'Memory limit of each sandbox, e.g. "2g" or "512m".' })),
    cpus: Type.Optional(Type.Number({ minimum: MIN_SANDBOX_CPUS, description: 'CPUs each sandbox may use, e.g. 1.5.' })),
    pids: Type.Optional(Type.Integer({ minimum: MIN_SANDBOX_PIDS, description: 'Most processes and threads at once in a sandbox.' })),
    disk: Type.Optional(Type.String({ pattern: MEMORY_SIZE_PATTERN, description: 'Disk each sandbox may fill (its workspace and home), e.g. "5g".' })),
    image: Type.Optional(SandboxImageSchema),
  },
  { additionalProperties: false },
);

export const RuntimeSectionSchema = Type.Object(
  { config_dir: Type.Optional(Type.String({ minLength: 1, description: 'Relative to the repository root.' })) },
  { additionalProperties: false },
);

/** `key:` with nothing after it is null in YAML; the parser reads it as "empty", so the schema allows it. */
function OrEmpty<Schema extends TSchema>(schema: Schema) {
  return Type.Union([schema, Type.Null()]);
}

export const ManifestDocumentSchema = Type.Object(
  {
    version: Type.Optional(Type.Literal(1)),
    triggers: Type.Optional(OrEmpty(Type.Array(TriggerEntrySchema))),
    agents: Type.Optional(OrEmpty(Type.Record(Type.String({ pattern: AGENT_NAME_PATTERN }), OrEmpty(AgentEntrySchema)))),
    default_agent: Type.Optional(AgentField),
    runtime: Type.Optional(OrEmpty(RuntimeSectionSchema)),
    sandbox: Type.Optional(OrEmpty(SandboxSectionSchema)),
    env: Type.Optional(OrEmpty(Type.Array(Type.Union([Type.String({ pattern: ENV_NAME_PATTERN }), EnvEntrySchema])))),
  },
  { additionalProperties: false, title: 'svc manifest (svc.yaml / svc.toml)' },
);

export type ManifestDocument = Static<typeof ManifestDocumentSchema>;

/** Keys the parser recognises, read from the schema so the two cannot drift apart. */
export const MANIFEST_TOP_LEVEL_KEYS: readonly string[] = Object.keys(ManifestDocumentSchema.properties);
export const COMMON_TRIGGER_KEYS: readonly string[] = Object.keys(commonTriggerEntryFields).concat('type');
export const CRON_ONLY_TRIGGER_KEYS: readonly string[] = Object.keys(CronTriggerEntrySchema.properties).filter(
  (key) => !COMMON_TRIGGER_KEYS.includes(key),
);
export const WEBHOOK_ONLY_TRIGGER_KEYS: readonly string[] = Object.keys(WebhookTriggerEntrySchema.properties).filter(
  (key) => !COMMON_TRIGGER_KEYS.includes(key),
);
export const AGENT_KEYS: readonly string[] = Object.keys(AgentEntrySchema.properties);
export const ENV_ENTRY_KEYS: readonly string[] = Object.keys(EnvEntrySchema.properties);
export const RUNTIME_KEYS: readonly string[] = Object.keys(RuntimeSectionSchema.properties);
export const SANDBOX_KEYS: readonly string[] = Object.keys(SandboxSectionSchema.properties);
export const SANDBOX_IMAGE_KEYS: readonly string[] = Object.keys(SandboxImageSchema.properties);

// ── The normalized manifest every consumer reads ─────────────────────────────────────────────────

const normalizedCommonTriggerFields = {
  slug: Type.String({ pattern: TRIGGER_SLUG_PATTERN }),
  name: Type.String({ minLength: 1 }),
  prompt: Type.String({ minLength: 1 }),
  /** Resolved: the entry's agent, else `default_agent`, else `default`. */
  agent: Type.String({ pattern: AGENT_NAME_PATTERN }),
  /** null: resolved at fire time through agent, project, account, platform. */
  model: Type.Union([Type.String({ pattern: MODEL_PATTERN }), Type.Null()]),
  session_mode: Type.Union([Type.Literal('fresh'), Type.Literal('reuse'), Type.Literal('pinned')]),
  /** Lowercase UUID; set exactly when session_mode is `pinned`. */
  session_id: Type.Union([Type.String({ pattern: SESSION_ID_PATTERN }), Type.Null()]),
  enabled: Type.Boolean(),
};

export const NormalizedCronTriggerSchema = Type.Object(
  {
    ...normalizedCommonTriggerFields,
    type: Type.Literal('cron'),
    /** Exactly one of cron and run_at is a string. Fields separated by single spaces. */
    cron: Type.Union([Type.String(), Type.Null()]),
    /** A UTC instant, `YYYY-MM-DDTHH:mm:ss.sssZ`. */
    run_at: Type.Union([Type.String(), Type.Null()]),
    timezone: Type.String(),
  },
  { additionalProperties: false },
);

export const NormalizedWebhookTriggerSchema = Type.Object(
  {
    ...normalizedCommonTriggerFields,
    type: Type.Literal('webhook'),
    secret_env: Type.String({ pattern: ENV_NAME_PATTERN }),
  },
  { additionalProperties: false },
);

export const NormalizedTriggerSchema = Type.Union([NormalizedCronTriggerSchema, NormalizedWebhookTriggerSchema]);

export const NormalizedAgentSchema = Type.Object(
  {
    description: Type.Union([Type.String(), Type.Null()]),
    model: Type.Union([Type.String({ pattern: MODEL_PATTERN }), Type.Null()]),
    prompt: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

export const NormalizedEnvEntrySchema = Type.Object(
  {
    name: Type.String({ pattern: ENV_NAME_PATTERN }),
    required: Type.Boolean(),
    description: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

export const NormalizedSandboxSchema = Type.Object(
  {
    memory_bytes: Type.Union([Type.Integer({ minimum: MIN_SANDBOX_MEMORY_MB * 1024 * 1024 }), Type.Null()]),
    cpus: Type.Union([Type.Number({ minimum: MIN_SANDBOX_CPUS }), Type.Null()]),
    pids: Type.Union([Type.Integer({ minimum: MIN_SANDBOX_PIDS }), Type.Null()]),
    disk_bytes: Type.Union([Type.Integer({ minimum: MIN_SANDBOX_DISK_MB * 1024 * 1024 }), Type.Null()]),
    /** Normalized POSIX path of the Dockerfile relative to the repository root. */
    dockerfile: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  },
  { additionalProperties: false },
);

export const NormalizedManifestSchema = Type.Object(
  {
    /** Only the entries without problems; the others are in the parse result's `errors`. */
    triggers: Type.Array(NormalizedTriggerSchema),
    agents: Type.Record(Type.String({ pattern: AGENT_NAME_PATTERN }), NormalizedAgentSchema),
    /** As declared; null when the manifest does not name one. */
    default_agent: Type.Union([Type.String({ pattern: AGENT_NAME_PATTERN }), Type.Null()]),
    runtime: Type.Object(
      { config_dir: Type.String({ minLength: 1, description: 'Normalized POSIX path relative to the repository root.' }) },
      { additionalProperties: false },
    ),
    env: Type.Array(NormalizedEnvEntrySchema),
    /** Each null: the server's default applies. */
    sandbox: NormalizedSandboxSchema,
  },
  { additionalProperties: false },
);

export type NormalizedCronTrigger = Static<typeof NormalizedCronTriggerSchema>;
export type NormalizedWebhookTrigger = Static<typeof NormalizedWebhookTriggerSchema>;
export type NormalizedTrigger = Static<typeof NormalizedTriggerSchema>;
export type NormalizedAgent = Static<typeof NormalizedAgentSchema>;
export type NormalizedEnvEntry = Static<typeof NormalizedEnvEntrySchema>;
export type NormalizedSandbox = Static<typeof NormalizedSandboxSchema>;
export type NormalizedManifest = Static<typeof NormalizedManifestSchema>;
export type TriggerType = (typeof TRIGGER_TYPES)[number];
export type SessionMode = (typeof SESSION_MODES)[number];
