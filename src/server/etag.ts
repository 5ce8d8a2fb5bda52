/** Conditional GETs, for the API and the web pages alike. */

/** True when an If-None-Match header lists the ETag (or `*`), compared weakly as RFC 9110 says for GET. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((candidate) => {
    const value = candidate.trim();
    return value === '*' || value.replace(/^W\//, '') === bare;
  });
}
