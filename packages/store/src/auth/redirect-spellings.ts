// One redirect address written several ways. Clients of the platform pass their redirect URI with its query
// values decoded (the Node web-flow sample sends `redirect_url=http://localhost:3000/callback?r=http%3A%2F%2F...`
// unencoded, so the store reads `r=http://...`) yet sign it percent-encoded, or the other way round. The
// browser always goes back to the registered URI; these spellings only decide what counts as naming it.

/** The registered spelling first, then its query values percent-encoded (two ways) and decoded. */
export function redirectSpellings(uri: string): string[] {
  const queryAt = uri.indexOf('?');
  if (queryAt < 0) return [uri];
  const base = uri.slice(0, queryAt);
  let pairs: [string, string][];
  try {
    pairs = uri
      .slice(queryAt + 1)
      .split('&')
      .filter((part) => part !== '')
      .map((part) => {
        const equals = part.indexOf('=');
        const [name, value] = equals < 0 ? [part, ''] : [part.slice(0, equals), part.slice(equals + 1)];
        return [decodeURIComponent(name.replaceAll('+', ' ')), decodeURIComponent(value.replaceAll('+', ' '))];
      });
  } catch {
    // Not valid percent-encoding: only the spelling as written names it.
    return [uri];
  }
  const join = (encode: (text: string) => string) =>
    `${base}?${pairs.map(([name, value]) => `${encode(name)}=${encode(value)}`).join('&')}`;
  const form = `${base}?${new URLSearchParams(pairs).toString()}`;
  return [...new Set([uri, join(encodeURIComponent), form, join((text) => text)])];
}

/** True when `given` is one of the spellings of `registered`, or the other way round. */
export function sameRedirect(registered: string, given: string): boolean {
  return redirectSpellings(registered).includes(given) || redirectSpellings(given).includes(registered);
}
