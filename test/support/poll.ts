/**
 * Reads `read` until `done` holds, every `everyMs`, for at most `withinMs`: how tests wait for something
 * another process or a background task does, instead of sleeping for a guessed time.
 */
export async function poll<T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean, { withinMs = 30_000, everyMs = 20 } = {}): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
