// The interactive API docs: Swagger UI (swagger-ui-dist, served by this store, so nothing is fetched elsewhere)
// over the OpenAPI document, with "Try it out" sending the token given under Authorize as X-AC-Auth-Token.

/** The HTML shell; its one script is a file of its own, so the CSP needs no inline script. */
export function docsPage(assets: string, initScript: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Store API v1 — documentation</title>
<link rel="icon" type="image/png" href="${assets}/favicon-32x32.png">
<link rel="stylesheet" href="${assets}/swagger-ui.css">
</head>
<body>
<noscript><p>This page needs JavaScript. The API is described in <a href="/api/v1/openapi.json">openapi.json</a> (OpenAPI 3.1); the admin console is at <a href="/admin">/admin</a>.</p></noscript>
<div id="swagger-ui"></div>
<script src="${assets}/swagger-ui-bundle.js"></script>
<script src="${assets}/swagger-ui-standalone-preset.js"></script>
<script src="${initScript}"></script>
</body></html>`;
}

/**
 * Starts Swagger UI on one part of the document at a time (the whole is too big to render quickly), picked in the
 * top bar; no online validator (it would call out); the token given under Authorize kept across reloads and parts.
 */
export function docsInitScript(parts: readonly { name: string; url: string }[], primary: string): string {
  return `window.ui = SwaggerUIBundle({
  urls: ${JSON.stringify(parts)},
  'urls.primaryName': ${JSON.stringify(primary)},
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  persistAuthorization: true,
  docExpansion: 'list',
  filter: true,
  displayRequestDuration: true,
  showExtensions: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
`;
}

/** What the page needs: scripts and styles from this origin; Swagger UI sets inline style attributes and shows data: images. */
export const docsContentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
