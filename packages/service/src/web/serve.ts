// The browser interface, served by the RPC service itself on GET (POSTs stay JSON-RPC): one HTML
// shell for every page address, and the client's files under /assets/<version>/. The client is
// TypeScript, stripped of its types when first asked for, then kept compressed in memory.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { transformSync } from 'amaro';
import { LANGUAGES, languageOfTag, type Language } from '../shared/languages.ts';
import { parseRoute } from '../shared/page-routes.ts';

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  etag: string;
}

interface Bundle {
  version: string;
  assets: Map<string, Asset>;
  /** The HTML shell in each language of the interface: `lang`, title and no-script text. */
  shells: Map<Language, Asset>;
  csp: string;
}

const srcDir = fileURLToPath(new URL('../', import.meta.url));
// The browser gets the client and the shapes and texts it shares with the server, under their paths in src/,
// so that the client's relative imports mean in the browser what they mean on disk.
const browserDirs = ['web/client', 'shared'];
/**
 * Bare specifiers the client imports, mapped to files of their packages by an import map: Preact, and
 * the engine's chain tones, layout and words, so that the Chain view and the engine's SVG draw and name a chain alike.
 */
const vendor: Record<string, string> = {
  preact: 'vendor/preact.mjs',
  'preact/hooks': 'vendor/hooks.mjs',
  '@app/engine/chain-tones': 'vendor/chain-tones.ts',
  '@app/engine/chain-layout': 'vendor/chain-layout.ts',
  '@app/engine/chain-words': 'vendor/chain-words.ts',
};
/** Client modules a first page does not need: the report imports them when it loads its chain, so the shell does not preload them. */
const onDemand: ReadonlySet<string> = new Set([
  ...['views/chain-view.ts', 'chain-model.ts', 'chain-layout.ts', 'chain-findings.ts', 'chain-texts.ts'].map(
    (name) => `web/client/${name}`,
  ),
  'vendor/chain-tones.ts',
  'vendor/chain-layout.ts',
  'vendor/chain-words.ts',
]);
const types: Record<string, string> = {
  '.ts': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

function asset(type: string, content: string | Buffer): Asset {
  const body = Buffer.from(content);
  return {
    type,
    body,
    gzip: gzipSync(body, { level: 9 }),
    brotli: brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  };
}

const escapeHtml = (text: string): string => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

const offeredTags = ['en', ...LANGUAGES.filter((language) => language !== 'en'), 'no', 'nn'];

/**
 * The shell's language for a first visit, from Accept-Language (English first, so it wins ties and
 * a browser that names none). The client then follows a language chosen before on this browser.
 */
function shellLanguage(request: FastifyRequest): Language {
  return languageOfTag(new Negotiator(request).language(offeredTags) ?? 'en') ?? 'en';
}

function clientFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return clientFiles(path);
    return entry.name.endsWith('.test.ts') || !(extname(entry.name) in types) ? [] : [path];
  });
}

/**
 * What the browser gets for a client file: types stripped from .ts, source-map comments dropped. amaro is the
 * stripper Node itself runs .ts with; node:module's stripTypeScriptTypes wraps it but logs an ExperimentalWarning.
 */
function browserText(path: string): string {
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.ts')) return transformSync(text, { mode: 'strip-only' }).code;
  if (path.endsWith('.mjs')) return text.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  return text;
}

function buildBundle(): Bundle {
  const sources = new Map<string, string>();
  for (const path of browserDirs.flatMap((dir) => clientFiles(join(srcDir, dir))))
    sources.set(relative(srcDir, path).split(sep).join('/'), path);
  for (const [specifier, name] of Object.entries(vendor)) sources.set(name, fileURLToPath(import.meta.resolve(specifier)));
  const texts = new Map([...sources].map(([name, path]) => [name, browserText(path)]));
  const hash = createHash('sha256');
  for (const [name, text] of [...texts].sort(([a], [b]) => a.localeCompare(b))) hash.update(`${name}\0${text}\0`);
  const version = hash.digest('base64url').slice(0, 12);
  const base = `/assets/${version}/`;

  const importMap = JSON.stringify({
    imports: Object.fromEntries(Object.entries(vendor).map(([specifier, name]) => [specifier, base + name])),
  });
  const modules = [...texts.keys()].filter((name) => /\.(ts|mjs)$/.test(name)).sort();
  const shell = (language: string, strings: Record<string, string>): string => `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(strings.app_name ?? '')}</title>
<link rel="icon" href="/favicon.ico" sizes="16x16 32x32 48x48">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${base}web/client/styles.css">
<script type="importmap">${importMap}</script>
${modules
  .filter((name) => !onDemand.has(name))
  .map((name) => `<link rel="modulepreload" href="${base}${name}">`)
  .join('\n')}
<script type="module" src="${base}web/client/main.ts"></script>
</head>
<body>
<div id="app"><main id="main"><p class="loading">…</p></main></div>
<noscript><p>${escapeHtml(strings.needs_javascript ?? '')}</p></noscript>
</body>
</html>
`;
  // The locale files the client fetches, read once above, also give the shell its words.
  const localeStrings = (language: Language) => JSON.parse(texts.get(`shared/locales/${language}.json`) ?? '{}') as Record<string, string>;
  const importMapHash = createHash('sha256').update(importMap).digest('base64');
  return {
    version,
    assets: new Map([...texts].map(([name, text]) => [name, asset(types[extname(name)] ?? 'application/octet-stream', text)])),
    shells: new Map(LANGUAGES.map((language) => [language, asset('text/html; charset=utf-8', shell(language, localeStrings(language)))])),
    csp: [
      "default-src 'none'",
      `script-src 'self' 'sha256-${importMapHash}'`,
      "style-src 'self'",
      "connect-src 'self'",
      "img-src 'self' data:",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; '),
  };
}

function send(request: FastifyRequest, reply: FastifyReply, content: Asset, cacheControl: string, vary = 'accept-encoding'): FastifyReply {
  reply.header('content-type', content.type).header('cache-control', cacheControl).header('etag', content.etag).header('vary', vary);
  reply.header('x-content-type-options', 'nosniff');
  if (request.headers['if-none-match'] === content.etag) return reply.code(304).send();
  const accepted = String(request.headers['accept-encoding'] ?? '');
  if (/\bbr\b/.test(accepted)) return reply.header('content-encoding', 'br').send(content.brotli);
  if (/\bgzip\b/.test(accepted)) return reply.header('content-encoding', 'gzip').send(content.gzip);
  return reply.send(content.body);
}

// The site's icon, at the address browsers ask for by themselves: for this interface, and for a
// web interface served in front of the service that leaves /favicon.ico to it. The ICO holds the
// SVG drawn at 16, 32 and 48 pixels.
const icons = new Map([
  ['/favicon.ico', { file: 'favicon.ico', type: 'image/x-icon' }],
  ['/favicon.svg', { file: 'favicon.svg', type: 'image/svg+xml' }],
]);

/** GET (and HEAD) on any path: the interface. Other methods are left to the RPC endpoint. */
export function registerWebInterface(app: FastifyInstance): void {
  let bundle: Bundle | undefined;
  const current = () => (bundle ??= buildBundle());

  for (const [path, { file, type }] of icons) {
    let icon: Asset | undefined;
    app.get(path, (request, reply) =>
      send(request, reply, (icon ??= asset(type, readFileSync(new URL(file, import.meta.url)))), 'public, max-age=86400'),
    );
  }

  app.get('/assets/:version/*', (request, reply) => {
    const { version, '*': name } = request.params as { version: string; '*': string };
    const { assets, version: now } = current();
    const content = assets.get(name);
    if (content === undefined) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    // A page from before a restart may still ask for the old version: it gets today's file, uncached.
    return send(request, reply, content, version === now ? 'public, max-age=31536000, immutable' : 'no-cache');
  });

  app.get('/*', (request, reply) => {
    const { shells, csp } = current();
    const pathname = request.url.split('?')[0] ?? '/';
    reply.code(parseRoute(pathname).page === 'not-found' ? 404 : 200);
    reply.header('content-security-policy', csp).header('referrer-policy', 'no-referrer');
    return send(request, reply, shells.get(shellLanguage(request))!, 'no-cache', 'accept-encoding, accept-language');
  });
}
