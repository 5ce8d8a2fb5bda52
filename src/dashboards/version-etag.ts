/**
 * A dashboard version's entity tag: its number and when it was published, as `"3.mfz2k1qo"`. The number
 * alone names another document once a dashboard is deleted and published again (its versions start at
 * 1 again), and a copy cached before must not match it.
 */
export function versionEtag(version: number, publishedAt: string): string {
  return `"${version}.${publishedTag(publishedAt)}"`;
}

/** The second part of a version's entity tag. */
export function publishedTag(publishedAt: string): string {
  return Date.parse(publishedAt).toString(36);
}
