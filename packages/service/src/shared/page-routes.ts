// The interface's addresses, read by the browser's router and by the server (which answers an
// address no route knows with 404).
export type Route =
  | { page: 'home' }
  | { page: 'result'; id: string }
  | { page: 'history'; domain: string }
  | { page: 'compare'; from: string; to: string }
  | { page: 'batch'; id: string }
  | { page: 'not-found' };

const TEST_ID = '([0-9a-f]{16})';

const patterns: { pattern: RegExp; route: (match: string[]) => Route }[] = [
  { pattern: /^\/$/, route: () => ({ page: 'home' }) },
  { pattern: new RegExp(`^/result/${TEST_ID}$`), route: ([, id]) => ({ page: 'result', id: id ?? '' }) },
  { pattern: /^\/history\/([^/]+)$/, route: ([, domain]) => ({ page: 'history', domain: decodeURIComponent(domain ?? '') }) },
  {
    pattern: new RegExp(`^/compare/${TEST_ID}/${TEST_ID}$`),
    route: ([, from, to]) => ({ page: 'compare', from: from ?? '', to: to ?? '' }),
  },
  { pattern: /^\/batch\/([1-9][0-9]{0,15})$/, route: ([, id]) => ({ page: 'batch', id: id ?? '' }) },
];

export function parseRoute(pathname: string): Route {
  for (const { pattern, route } of patterns) {
    const match = pattern.exec(pathname);
    if (match) {
      try {
        return route([...match]);
      } catch {
        return { page: 'not-found' }; // a malformed %-escape
      }
    }
  }
  return { page: 'not-found' };
}

export const paths = {
  home: () => '/',
  result: (id: string) => `/result/${id}`,
  history: (domain: string) => `/history/${encodeURIComponent(domain)}`,
  compare: (from: string, to: string) => `/compare/${from}/${to}`,
  batch: (id: string | number) => `/batch/${id}`,
};
