// Turns a scenario's signature time (`-30d`, `+2h`, `0`, or absolute YYYYMMDDHHMMSS) into the
// absolute form dnssec-signzone takes, so windows in the past (expired signatures) work too.
const unitSeconds: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

export function signatureTime(spec: string, now: Date = new Date()): string {
  if (/^\d{14}$/.test(spec)) return spec;
  const match = /^([+-]?)(\d+)([smhdw]?)$/.exec(spec);
  if (match === null) throw new Error(`bad signature time "${spec}"`);
  const seconds = Number(match[2]) * (unitSeconds[match[3] || 's'] ?? 1) * (match[1] === '-' ? -1 : 1);
  return new Date(now.getTime() + seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}
