/**
 * One interface for the three sandbox providers (contract §6): the session lifecycle asks a provider to
 * start a sandbox (first boot or resume), stop it (processes and memory dropped, files kept), remove it
 * (everything gone), and whether it is still alive. Where its daemon answers is all svc needs after that:
 * every other exchange goes through the daemon over HTTP.
 */
export interface SandboxStart {
  sessionId: string;
  /** The injected environment (spec 3's table and the project's secrets), before provider additions. */
  env: Record<string, string>;
  /** The provider's handle from an earlier boot of this sandbox, when resuming. */
  ref: string | null;
  /** Limits and image from the project's manifest (sandbox-settings.ts); absent: the provider's defaults. */
  settings?: SandboxSettings;
}

/** What one sandbox may use: the manifest's `sandbox:` settings, else the server's defaults. */
export interface SandboxLimits {
  memoryBytes: number;
  cpus: number;
  pids: number;
  /** The sandbox's writable state (workspace and home) at most; see each provider for what it holds to it. */
  diskBytes: number;
}

/** A project's own sandbox image (`sandbox.image.dockerfile`); only the docker provider builds it. */
export interface ProjectImage {
  /** Changes exactly when the build's input changes: the context's git tree and the Dockerfile's name in it. */
  key: string;
  /** The Dockerfile's name inside the context. */
  dockerfile: string;
  /** Where it comes from, for messages: `.svc/sandbox/Dockerfile on main`. */
  source: string;
  /** The build context (the Dockerfile's folder at that commit) as a tar archive. */
  context(): Promise<Buffer>;
}

export interface SandboxSettings {
  limits: SandboxLimits;
  image: ProjectImage | null;
}

export interface StartedSandbox {
  /** The provider's own handle (a directory, a container id); kept on the session row. */
  ref: string;
  /** Where the control plane reaches the daemon, e.g. http://127.0.0.1:41234. */
  daemonUrl: string;
}

export interface SandboxProvider {
  readonly name: 'process' | 'bubblewrap' | 'docker';
  /** Whether the sandboxes isolate the agent from the host; the process provider does not. */
  readonly isolates: boolean;
  /**
   * Run once when svc starts: throws SandboxUnavailableError (one line, with the fix) when the provider
   * cannot work here, and removes what sandboxes that are no longer running left behind after a crash.
   */
  prepare(): Promise<void>;
  start(sandbox: SandboxStart): Promise<StartedSandbox>;
  stop(sessionId: string, ref: string): Promise<void>;
  remove(sessionId: string, ref: string | null): Promise<void>;
  isAlive(sessionId: string, ref: string): Promise<boolean>;
  /** For a sandbox that is not alive although its session runs: what happened, in a sentence for the session's `error`. */
  endedReason(sessionId: string, ref: string): Promise<string>;
}
