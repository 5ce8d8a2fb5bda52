/** A configured sandbox provider that cannot run on this machine; its message is one line with the fix. */
export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';
}
