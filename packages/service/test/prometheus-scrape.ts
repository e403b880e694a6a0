// Scrapes a service's /metrics as Prometheus would and reads single values out of it.
import assert from 'node:assert/strict';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export interface Scrape {
  /** The sample of this family whose labels include these; 0 when the family has no such sample. */
  value(name: string, labels?: Record<string, string>): number;
  /** A histogram's observation count. */
  count(name: string): number;
  names: string[];
}

export async function scrape(baseUrl: string): Promise<Scrape> {
  const response = await fetch(new URL('/metrics', baseUrl));
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const families = parsePrometheusTextFormat(await response.text());
  const family = (name: string) => families.find((f) => f.name === name);
  return {
    names: families.map((f) => f.name),
    value: (name, labels = {}) => {
      const sample = family(name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
      return Number(sample?.value ?? 0);
    },
    count: (name) => Number(family(name)?.metrics[0]?.count ?? 0),
  };
}
