/** A size as people read it: bytes, KiB or MiB with at most one decimal. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1_048_576) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${(bytes / 1_048_576).toFixed(1).replace(/\.0$/, '')} MiB`;
}
