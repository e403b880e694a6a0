// The access form: one row per area with No access, Read, or Read and modify, plus full access.
import type { Scope } from '../auth/scopes.ts';
import { html, type Markup } from './html.ts';
import { areas, describeScopes, levelIn, levelsOf, levelText, scopesFromLevels, type Level } from './scope-areas.ts';

/** The choices' own labels: short, so an area's three fit on one line of a phone. */
const choiceText: Record<Level, string> = { none: 'No access', read: 'Read', modify: 'Modify' };
import type { FormBody } from './console-request.ts';

const FIELD = (areaId: string) => `access_${areaId}`;

export function accessFieldset(chosen: readonly Scope[], legend = 'Access'): Markup {
  return html`<fieldset><legend>${legend}</legend>
<p class="hint">Choose what the token may do in each area. Modify includes reading; settings have no read-only access.</p>
${areas.map((area) => {
  const current = chosen.includes('system') ? 'none' : levelIn(chosen, area);
  return html`<div class="level-row" role="radiogroup" aria-labelledby="area-${area.id}">
  <p class="area-name" id="area-${area.id}">${area.name}<span class="muted">${area.covers}</span></p>
  ${(['none', 'read', 'modify'] as const).map((level) =>
    levelsOf(area).includes(level)
      ? html`<label class="level"><input type="radio" name="${FIELD(area.id)}" value="${level}" ${level === current ? 'checked' : ''}> ${choiceText[level]}</label>`
      : html`<span class="level muted" aria-hidden="true">—</span>`,
  )}
</div>`;
})}
<label class="choice"><input type="checkbox" name="access_all" value="system" ${chosen.includes('system') ? 'checked' : ''}> <span>Full access <span class="muted">— every area, including areas added later (<code>system</code>)</span></span></label>
</fieldset>`;
}

/** The scopes an access form asks for. */
export function scopesFromForm(body: FormBody | undefined): Scope[] {
  const one = (name: string) => {
    const value = body?.[name];
    return (Array.isArray(value) ? value[0] : value) ?? '';
  };
  return one('access_all') === 'system' ? ['system'] : scopesFromLevels((areaId) => one(FIELD(areaId)));
}

/** Granted scopes in plain words, for tables and the grant page. */
export function scopeSummary(scopes: readonly Scope[]): Markup {
  const described = describeScopes(scopes.filter((s) => s !== 'no_expiry'));
  if (described.length === 0) return html`<span class="muted">nothing</span>`;
  return html`${described.map((d, i) => html`${i > 0 ? '; ' : ''}${d.name}${d.level === undefined ? '' : html`: ${levelText[d.level].toLowerCase()}`}`)}`;
}
