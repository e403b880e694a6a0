// Serves the OpenAPI document and the interactive docs page, with Swagger UI's files from the swagger-ui-dist
// package under a versioned path. All of it is public and not an API call, so not counted against the rate limit.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../model/api-error.ts';
import { openApiDocument } from './openapi.ts';
import { documentGroups, documentPart } from './openapi-groups.ts';
import { docsContentSecurityPolicy, docsInitScript, docsPage } from './docs-page.ts';

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const swaggerUiVersion = (JSON.parse(readFileSync(join(swaggerUiDir, 'package.json'), 'utf8')) as { version: string }).version;

/** The only files of the package the page uses, with their types. */
const assetTypes: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

interface Asset {
  type: string;
  plain: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

const config = { public: true, notRateLimited: true };

export function apiDocs(app: FastifyInstance): Promise<void> {
  const prefix = app.prefix;
  const whole = openApiDocument() as Parameters<typeof documentPart>[0];
  // The whole document is 1.5 MB of JSON: it and each part are made and compressed once, on first use, like the assets.
  const documents = new Map<string, Asset>();
  const documentAsset = (group: unknown): Asset => {
    const key = typeof group === 'string' ? group : '';
    let asset = documents.get(key);
    if (asset === undefined) {
      let document = whole;
      if (group !== undefined) {
        const found = documentGroups.find((g) => g.name === group);
        if (found === undefined)
          throw new ApiError(
            404,
            `openapi.json has no group ${JSON.stringify(group)}; the groups are ${documentGroups.map((g) => g.name).join(', ')}`,
          );
        document = documentPart(whole, found);
      }
      asset = { type: 'application/json; charset=utf-8', plain: Buffer.from(JSON.stringify(document)) };
      documents.set(key, asset);
    }
    return asset;
  };
  const assetsPath = `/docs/swagger-ui/${swaggerUiVersion}`;
  const page = docsPage(`${prefix}${assetsPath}`, `${prefix}/docs/init.js`);
  const init = docsInitScript(
    documentGroups.map((g) => ({ name: g.name, url: `${prefix}/openapi.json?group=${g.name}` })),
    documentGroups[0]?.name ?? '',
  );
  // Read and compressed on first use: most instances never serve the docs.
  const assets = new Map<string, Asset>();

  app.get<{ Querystring: { group?: unknown } }>('/openapi.json', { config }, (request, reply) =>
    sendCompressed(request, reply.header('cache-control', 'no-cache'), documentAsset(request.query.group)),
  );
  app.get('/docs', { config }, (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', docsContentSecurityPolicy)
      .send(page),
  );
  app.get('/docs/init.js', { config }, (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(init),
  );
  app.get<{ Params: { file: string } }>(`${assetsPath}/:file`, { config }, (request, reply) => {
    // Own names only: `constructor` is found on every object.
    const type = Object.hasOwn(assetTypes, request.params.file) ? assetTypes[request.params.file] : undefined;
    if (type === undefined) throw new ApiError(404, `No file ${request.params.file} in the docs page's assets`);
    let asset = assets.get(request.params.file);
    if (asset === undefined) {
      asset = { type, plain: readFileSync(join(swaggerUiDir, request.params.file)) };
      assets.set(request.params.file, asset);
    }
    void reply.header('cache-control', 'public, max-age=31536000, immutable');
    return asset.type === 'image/png' ? reply.type(asset.type).send(asset.plain) : sendCompressed(request, reply, asset);
  });
  return Promise.resolve();
}

/** In the best encoding the client takes, each kept once made. */
function sendCompressed(request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  void reply.type(asset.type).header('vary', 'accept-encoding');
  const accepted = String(request.headers['accept-encoding'] ?? '');
  if (/\bbr\b/.test(accepted)) {
    asset.br ??= brotliCompressSync(asset.plain, { params: { [constants.BROTLI_PARAM_QUALITY]: 6 } });
    return reply.header('content-encoding', 'br').send(asset.br);
  }
  if (/\bgzip\b/.test(accepted)) {
    asset.gzip ??= gzipSync(asset.plain);
    return reply.header('content-encoding', 'gzip').send(asset.gzip);
  }
  return reply.send(asset.plain);
}
