// A readable, script-free HTML page of the API, rendered from the resource declarations.
import { visibleFields, type ResourceDeclaration } from '../resources/declaration.ts';
import { resourceNamed } from '../resources/registry.ts';
import { DEFAULT_COUNT, MAX_COUNT, operators } from '../resources/query-language.ts';
import { idempotencyHeader } from '../idempotency/idempotency-header.ts';

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function resourceSection(resource: ResourceDeclaration): string {
  const rows = visibleFields(resource)
    .map(([name, field]) => {
      const notes = [
        field.required === true ? 'required on create' : '',
        field.readOnly === true ? 'read-only' : '',
        field.references === undefined ? '' : `id of a ${resourceNamed(field.references).singular}`,
        field.maxLength === undefined ? '' : `at most ${field.maxLength} characters`,
      ].filter((n) => n !== '');
      return `<tr><td><code>${escape(name)}</code></td><td>${field.type}</td><td>${escape(notes.join('; '))}</td></tr>`;
    })
    .join('\n');
  const base = `/api/v1/${resource.path}`;
  const can = new Set(resource.operations);
  const routes = [
    ...(can.has('list') ? [`GET ${base}`, `GET ${base}/select_many?ids=1,2`] : []),
    ...(can.has('create') ? [`POST ${base} (an existing id in the body updates it)`] : []),
    ...(can.has('read') ? [`GET ${base}/{id}`, `GET ${base}/{id}/filled`] : []),
    ...(can.has('update') ? [`PUT ${base}/{id}`] : []),
    ...(can.has('delete') ? [`DELETE ${base}/{id}`] : []),
    ...Object.entries(can.has('read') ? resource.nested : {}).flatMap(([name, nested]) =>
      nested.kind === 'link' ? [`GET ${base}/{id}/${name}`, `PUT ${base}/{id}/${name}/{childId}`, `DELETE ${base}/{id}/${name}/{childId}`] : [`GET ${base}/{id}/${name}`],
    ),
  ];
  return `<section id="${resource.name}">
<h2>${escape(resource.name)}</h2>
<p>Scope group <code>${resource.scope}</code>: <code>read_${resource.scope}</code> to read, <code>${resource.scope}</code> to write.</p>
<ul>${routes.map((r) => `<li><code>${escape(r)}</code></li>`).join('')}</ul>
<table><thead><tr><th>Field</th><th>Type</th><th>Notes</th></tr></thead><tbody>
${rows}
</tbody></table>
</section>`;
}

export function docsPage(all: readonly ResourceDeclaration[]): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Store API v1</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
code{background:#f4f4f4;padding:0 .2rem}nav a{margin-right:.75rem}</style></head>
<body>
<h1>Store API v1</h1>
<p>JSON over HTTPS under <code>/api/v1</code>; <code>.json</code> after a path is optional. Send the token in <code>X-AC-Auth-Token</code>.
The machine-readable description is <a href="/api/v1/openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
<nav>${all.map((r) => `<a href="#${r.name}">${r.name}</a>`).join('')}</nav>
<h2>Lists</h2>
<p>A list answers <code>{"total_count": n, "next_page": url, "previous_page": url, "&lt;resource&gt;": [...]}</code>; the page links are absolute, keep every query parameter, and are left out when there is no such page.</p>
<ul>
<li><code>page</code> (from 1; past the end is 404), <code>count</code> (default ${DEFAULT_COUNT}, at most ${MAX_COUNT})</li>
<li><code>fields=a,b</code> returns only those fields; <code>expand=x</code> inlines a nested collection</li>
<li><code>sort=a,-b</code> sorts, <code>-</code> descending; the id breaks ties so paging never skips or repeats. When every sort field is never null (id, created_at, updated_at, required fields), <code>next_page</code> also carries an opaque <code>after</code> position, so rows changed while you page are not skipped: a changed row comes again, later, in its new version</li>
<li>Filters <code>field=op:value</code> with op one of ${operators.map((o) => `<code>${o}</code>`).join(', ')} (<code>eq</code> is the default);
<code>price=gt:5+AND+lte:25</code> joins conditions on one field (a space or <code>%2B</code> works too); a leading <code>OR+</code> joins the field to the others with OR</li>
</ul>
<h2>Errors</h2>
<p>Every error is <code>{"status_code": 404, "message": "Not Found", "details": "..."}</code>: 400 bad input, 401/403 authentication, 404, 405, 409 conflicts (such as an unknown referenced id), 413 body too large, 415 not JSON, 429 rate limit.</p>
<h2>Safe retries</h2>
<p>Any POST or PUT may carry <code>${idempotencyHeader.name}</code> (1 to 255 visible ASCII characters, such as a UUID). ${escape(idempotencyHeader.description).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>
${all.map(resourceSection).join('\n')}
</body></html>`;
}
