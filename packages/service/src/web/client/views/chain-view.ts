// The report's Chain view: the delegation and DNSSEC chain as a picture (zones as nested boxes, keys,
// DS records and signed RRsets as nodes, edges coloured and dashed by status, a legend), drawn here
// from get_test_chain's JSON. Each node is a button: chosen by click, Enter or Space, it shows its
// details and the findings that concern it. Texts from DNS data only ever reach the page as text
// (Preact sets them as text nodes and attribute values), never as markup.
import { h, type ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { edgePath, type Rect } from '@app/engine/chain-layout';
import { TONE_LOOKS, TONES, type Tone } from '@app/engine/chain-tones';
import type { ChainJson, GrokProblem, GrokRrsig, TestEvidence, TestResult } from '../api.ts';
import { findingsByNode } from '../chain-findings.ts';
import { layoutChain } from '../chain-layout.ts';
import { chainModel, humanName, type ChainModel, type ChainNode } from '../chain-model.ts';
import { digestHex, keySizeText, nodeTexts, roleText } from '../chain-texts.ts';
import { useI18n, type I18n } from '../i18n.ts';
import { FindingList } from './finding-list.ts';

const LEGEND_ROW = 20;
const FALLBACK_WIDTH = 720;
/** The picture's element, for the SVG export. */
export const CHAIN_PICTURE_ID = 'chain-picture';

/** A text cut in the middle to fit a width (about 6.6 px a character at 12 px); the whole text is in the node's name. */
function fit(text: string, width: number): string {
  const max = Math.max(6, Math.floor((width - 14) / 6.6));
  return text.length <= max ? text : `${text.slice(0, Math.ceil(max / 2) - 1)}…${text.slice(text.length - Math.floor(max / 2))}`;
}

/** A text broken at spaces into lines of about `width` px at 11 px (6 px a character). */
function wrap(text: string, width: number): string[] {
  const max = Math.max(10, Math.floor(width / 6));
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > max) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return line === '' ? lines : [...lines, line];
}
const LINE = 14;

/**
 * The texts a node shows, cut to its width, and its name: what it shows (so that speech input can
 * say it) and then its zone, and the whole texts when they were cut.
 */
function nodeShown(node: ChainNode, width: number, t: I18n['t']): { lines: string[]; name: string } {
  const { label, detail } = nodeTexts(node, t);
  const whole = node.kind === 'zone' ? [detail === '' ? label : `${label} — ${detail}`] : [label, detail];
  const lines = whole.map((text) => fit(text, width));
  const cut = lines.some((line, i) => line !== whole[i]);
  const zone = node.kind === 'zone' ? t('chain_zone') : `${t('chain_zone')} ${humanName(node.zone)}`;
  return { lines, name: `${lines.join(' ')}, ${zone}${cut ? ` (${whole.join(' ')})` : ''}` };
}

const stroke = (tone: Tone, width: number) => ({
  stroke: TONE_LOOKS[tone].colour,
  'stroke-width': width,
  ...(TONE_LOOKS[tone].dash !== undefined && { 'stroke-dasharray': TONE_LOOKS[tone].dash }),
});

function Picture(props: {
  model: ChainModel;
  domain: string;
  width: number;
  selected: string | undefined;
  onSelect: (id: string) => void;
}) {
  const { t } = useI18n();
  const { model } = props;
  // Notes and the legend's last line wrap; the layout leaves them the room they take at this width.
  const narrowest = props.width - 2 * 10 * model.zones.length - 20;
  const nothingAsked = wrap(t('chain_nothing_asked'), narrowest);
  const shapes = wrap(t('chain_shapes'), props.width - 8);
  const layout = layoutChain(
    model,
    props.width,
    LEGEND_ROW * (TONES.length + 1) + shapes.length * LINE + 8,
    nothingAsked.length * LINE + 8,
  );
  const nodeRects = [...model.nodes.values()].filter((node) => node.kind !== 'zone').map((node) => layout.places.get(node.id)!);
  const choose = (id: string) => (event: KeyboardEvent | MouseEvent) => {
    if (event instanceof KeyboardEvent && event.key !== 'Enter' && event.key !== ' ') return;
    event.preventDefault();
    props.onSelect(id);
  };
  const button = (node: ChainNode, rect: Rect, name: string, ...children: ComponentChildren[]) =>
    h(
      'g',
      {
        key: node.id,
        class: `chain-node chain-${node.kind}${props.selected === node.id ? ' selected' : ''}`,
        role: 'button',
        tabindex: 0,
        'aria-label': name,
        'aria-pressed': props.selected === node.id ? 'true' : 'false',
        'aria-controls': 'chain-details',
        onClick: choose(node.id),
        onKeyDown: choose(node.id),
      },
      h('rect', {
        class: 'chain-focus',
        x: rect.x - 4,
        y: rect.y - 4,
        width: rect.width + 8,
        height: rect.height + 8,
        rx: 10,
        fill: '#ffffff',
        'fill-opacity': 0,
      }),
      children,
    );

  return h(
    'svg',
    {
      id: CHAIN_PICTURE_ID,
      class: 'chain-picture',
      xmlns: 'http://www.w3.org/2000/svg',
      viewBox: `0 0 ${layout.width} ${layout.height}`,
      width: layout.width,
      height: layout.height,
      role: 'group',
      'aria-labelledby': 'chain-picture-title',
      'font-family': 'system-ui, sans-serif',
      'font-size': 12,
    },
    h('title', { id: 'chain-picture-title' }, t('chain_picture', { domain: humanName(props.domain) })),
    h(
      'defs',
      null,
      TONES.map((tone) =>
        h(
          'marker',
          {
            key: tone,
            id: `chain-arrow-${tone}`,
            viewBox: '0 0 10 10',
            refX: 9,
            refY: 5,
            markerWidth: 7,
            markerHeight: 7,
            orient: 'auto-start-reverse',
          },
          h('path', { d: 'M0,0L10,5L0,10z', fill: TONE_LOOKS[tone].colour }),
        ),
      ),
    ),
    h('rect', { width: layout.width, height: layout.height, fill: '#ffffff' }),
    layout.boxes.map((box) => {
      const zone = model.zones[box.depth];
      const heading = layout.places.get(zone.node.id)!;
      const { lines, name } = nodeShown(zone.node, heading.width, t);
      return h(
        'g',
        { key: zone.node.id, class: 'chain-zone' },
        h('rect', {
          x: box.x,
          y: box.y,
          width: box.width,
          height: box.height,
          rx: 8,
          fill: box.depth % 2 ? '#f3f5f7' : '#fbfcfd',
          ...stroke(zone.node.tone, 1.5),
        }),
        button(
          zone.node,
          heading,
          name,
          h('text', { x: heading.x + 6, y: heading.y + 17, 'font-weight': 'bold', fill: TONE_LOOKS[zone.node.tone].colour }, lines[0]),
        ),
        zone.nodes.length === 0
          ? h(
              'text',
              { 'font-size': 11, fill: '#4a4a4a' },
              nothingAsked.map((line, i) => h('tspan', { key: i, x: heading.x + 6, y: heading.y + heading.height + 14 + i * LINE }, line)),
            )
          : null,
      );
    }),
    h(
      'g',
      { 'aria-hidden': 'true' },
      model.edges.map((edge) => {
        const a = layout.places.get(edge.from);
        const b = layout.places.get(edge.to);
        if (!a || !b) return null;
        return h('path', {
          key: `${edge.kind} ${edge.from} ${edge.to}`,
          class: `chain-edge chain-${edge.kind}`,
          d: edgePath(a, b, edge.from === edge.to, nodeRects),
          fill: 'none',
          ...stroke(edge.tone, 1.6),
          'marker-end': `url(#chain-arrow-${edge.tone})`,
        });
      }),
    ),
    [...model.nodes.values()]
      .filter((node) => node.kind !== 'zone')
      .map((node) => {
        const rect = layout.places.get(node.id)!;
        const { lines, name } = nodeShown(node, rect.width, t);
        const rx = node.kind === 'dnskey' ? 20 : node.kind === 'rrset' ? 8 : 2;
        const x = rect.x + rect.width / 2;
        // One text of two lines, a space between them: what it shows reads as the start of its name.
        return button(
          node,
          rect,
          name,
          h('rect', { x: rect.x, y: rect.y, width: rect.width, height: rect.height, rx, fill: '#ffffff', ...stroke(node.tone, 2) }),
          h(
            'text',
            { x, 'text-anchor': 'middle', fill: '#111111' },
            h('tspan', { x, y: rect.y + 18, 'font-weight': 'bold' }, lines[0]),
            ' ',
            h('tspan', { x, y: rect.y + 35, 'font-size': 11, fill: TONE_LOOKS[node.tone].colour }, lines[1]),
          ),
        );
      }),
    h(Legend, { y: layout.legendY, shapes }),
  );
}

function Legend(props: { y: number; shapes: string[] }) {
  const { t } = useI18n();
  return h(
    'g',
    { class: 'chain-legend', transform: `translate(4 ${props.y})` },
    h('text', { x: 0, y: 0, 'font-weight': 'bold', fill: '#111111' }, t('chain_legend')),
    TONES.map((tone, i) => {
      const y = LEGEND_ROW * (i + 1);
      return h(
        'g',
        { key: tone },
        h('line', { x1: 0, y1: y - 4, x2: 40, y2: y - 4, ...stroke(tone, 2) }),
        h('text', { x: 48, y, fill: TONE_LOOKS[tone].colour }, t(`chain_tone_${tone}`)),
      );
    }),
    h(
      'text',
      { 'font-size': 11, fill: '#333333' },
      props.shapes.map((line, i) => h('tspan', { key: i, x: 0, y: LEGEND_ROW * (TONES.length + 1) + i * LINE }, line)),
    ),
  );
}

/** The width the picture has: its container's, followed as the window (or the printed page) changes. */
function useWidth(): [(element: HTMLElement | null) => void, number] {
  const [width, setWidth] = useState(0);
  const observer = useRef<ResizeObserver | undefined>(undefined);
  useEffect(() => () => observer.current?.disconnect(), []);
  const ref = useCallback((element: HTMLElement | null) => {
    observer.current?.disconnect();
    if (element === null) return;
    observer.current = new ResizeObserver((entries) => {
      const measured = Math.floor(entries[0]?.contentRect.width ?? 0);
      if (measured > 0) setWidth(measured);
    });
    observer.current.observe(element);
  }, []);
  return [ref, width];
}

export function ChainView(props: { chain: ChainJson; domain: string; results: readonly TestResult[]; evidence: TestEvidence | undefined }) {
  const { t } = useI18n();
  const model = useMemo(() => chainModel(props.chain), [props.chain]);
  const findings = useMemo(
    () => findingsByNode(model, props.results, props.evidence, props.domain),
    [model, props.results, props.evidence, props.domain],
  );
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [ref, width] = useWidth();
  const node = selected === undefined ? undefined : model.nodes.get(selected);
  return h(
    'div',
    { class: 'chain-view' },
    h(
      'div',
      { class: 'chain-canvas', ref },
      h(Picture, { model, domain: props.domain, width: width || FALLBACK_WIDTH, selected, onSelect: setSelected }),
    ),
    // The choice is announced by the node's heading alone, not the whole panel.
    h(
      'p',
      { role: 'status', class: 'visually-hidden' },
      node === undefined ? '' : t('chain_details_of', { node: nodeTexts(node, t).label }),
    ),
    h(
      'section',
      { id: 'chain-details', class: 'chain-details', 'aria-labelledby': 'chain-details-heading' },
      node === undefined
        ? [
            h('h3', { id: 'chain-details-heading', key: 'h' }, t('chain_details')),
            h('p', { class: 'hint', key: 'p' }, t('chain_choose_node')),
          ]
        : h(NodeDetails, { node, findings: findings.get(node.id) ?? [] }),
    ),
  );
}

function NodeDetails(props: { node: ChainNode; findings: TestResult[] }) {
  const { t } = useI18n();
  const { node } = props;
  const rows: [string, ComponentChildren][] = [[t('chain_zone'), humanName(node.zone)]];
  let more: ComponentChildren = null;
  switch (node.kind) {
    case 'zone': {
      const { data } = node;
      rows.push([t('chain_delegation'), node.status]);
      more = [
        h(Problems, { key: 'p', problems: data.delegation?.errors ?? [] }),
        h(ServerTable, { key: 's', servers: data.zone?.servers ?? {} }),
        (data.dnscheck_notes?.length ?? 0) > 0
          ? h(
              'div',
              { key: 'n' },
              h('h4', null, t('chain_notes')),
              h(
                'ul',
                null,
                data.dnscheck_notes!.map((note, i) => h('li', { key: i }, note)),
              ),
            )
          : null,
      ];
      break;
    }
    case 'dnskey':
      rows.push(
        [t('chain_algorithm'), String(node.key.algorithm)],
        [t('chain_key_tag'), String(node.key.key_tag)],
        [t('chain_flags'), `${node.key.flags} (${roleText(node.key.flags, t)})`],
        [t('chain_key_size'), keySizeText(node.key.algorithm, node.key.key_length, t)],
        [t('chain_signs'), (node.key.signs ?? []).join(', ') || '—'],
        [t('chain_servers'), node.key.servers.join(', ')],
      );
      more = h(Signatures, { rrsigs: node.rrsigs, title: t('chain_signatures_dnskey') });
      break;
    case 'ds':
      rows.push(
        [t('chain_child'), humanName(node.child)],
        [t('chain_ds_id'), node.ds.id],
        [t('chain_status'), node.status],
        [t('chain_algorithm'), String(node.ds.algorithm)],
        [t('chain_key_tag'), String(node.ds.key_tag)],
        [t('chain_digest_type'), String(node.ds.digest_type)],
        [t('chain_digest'), h('code', { class: 'digest' }, digestHex(node.ds.digest))],
        [t('chain_servers'), node.ds.servers.join(', ')],
      );
      more = [
        h(Problems, { key: 'p', problems: [...(node.ds.errors ?? []), ...(node.ds.warnings ?? [])] }),
        h(Signatures, { key: 's', rrsigs: node.rrsigs, title: t('chain_signatures') }),
      ];
      break;
    case 'rrset':
      rows.push([t('chain_status'), node.status], [t('chain_servers'), [...new Set(node.rrsets.flatMap((r) => r.servers))].join(', ')]);
      more = [
        h(
          'div',
          { key: 'r' },
          h('h4', null, t('chain_records')),
          h(
            'pre',
            { class: 'records' },
            node.rrsets.flatMap((r) => r.rdata.map((rdata) => `${r.name} ${r.ttl} IN ${r.type} ${rdata}\n`)).join(''),
          ),
        ),
        h(Signatures, { key: 's', rrsigs: node.rrsets.flatMap((r) => r.rrsig ?? []), title: t('chain_signatures') }),
      ];
      break;
    case 'no-ds':
      rows.push(
        [t('chain_child'), humanName(node.child)],
        [t('chain_proof'), node.status],
        [t('chain_servers'), [...new Set(node.negative.flatMap((n) => n.servers))].join(', ')],
      );
      break;
  }
  return h(
    'div',
    { class: `chain-node-details tone-${node.tone}` },
    h('h3', { id: 'chain-details-heading' }, t('chain_details_of', { node: nodeTexts(node, t).label })),
    h(
      'dl',
      null,
      rows.map(([term, value]) => [h('dt', { key: `${term}-t` }, term), h('dd', { key: `${term}-d` }, value)]),
    ),
    more,
    h('h4', null, t('chain_findings')),
    props.findings.length > 0
      ? h(FindingList, { results: props.findings, withModule: true })
      : h('p', { class: 'hint' }, t('chain_no_findings')),
  );
}

function Problems(props: { problems: GrokProblem[] }) {
  const { t } = useI18n();
  if (props.problems.length === 0) return null;
  return h(
    'div',
    null,
    h('h4', null, t('chain_problems')),
    h(
      'ul',
      null,
      props.problems.map((p, i) => h('li', { key: i }, h('code', null, p.code), ` ${p.description}`)),
    ),
  );
}

/** Each RRSIG as a short list of facts: a table of five columns has no room on a phone. */
function Signatures(props: { rrsigs: GrokRrsig[]; title: string }) {
  const { t } = useI18n();
  return h(
    'div',
    { class: 'chain-signatures' },
    h('h4', null, props.title),
    props.rrsigs.length === 0
      ? h('p', { class: 'hint' }, t('chain_no_signatures'))
      : h(
          'ul',
          null,
          props.rrsigs.map((sig, i) =>
            h(
              'li',
              { key: i, class: `signature tone-${sig.status === 'VALID' ? 'secure' : 'bogus'}` },
              h(
                'dl',
                null,
                h('dt', null, t('chain_signer')),
                h('dd', null, sig.id),
                h('dt', null, t('chain_status')),
                h(
                  'dd',
                  null,
                  sig.status,
                  (sig.errors ?? []).map((e, j) => h('span', { key: j, class: 'sig-error' }, ` ${e.description}`)),
                ),
                h('dt', null, t('chain_valid_from')),
                h('dd', null, sig.inception),
                h('dt', null, t('chain_valid_until')),
                h('dd', null, sig.expiration),
                h('dt', null, t('chain_servers')),
                h('dd', null, sig.servers.join(', ')),
              ),
            ),
          ),
        ),
  );
}

function ServerTable(props: { servers: Record<string, { glue?: string[]; auth?: string[] }> }) {
  const { t } = useI18n();
  const entries = Object.entries(props.servers);
  if (entries.length === 0) return null;
  return h(
    'div',
    null,
    h(
      'table',
      { class: 'chain-servers' },
      h('caption', null, t('chain_servers')),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          [t('chain_server_name'), t('chain_glue'), t('chain_authoritative')].map((label) => h('th', { key: label, scope: 'col' }, label)),
        ),
      ),
      h(
        'tbody',
        null,
        entries.map(([name, s]) =>
          h(
            'tr',
            { key: name },
            h('td', null, humanName(name)),
            h('td', null, (s.glue ?? []).join(', ') || '—'),
            h('td', null, (s.auth ?? []).join(', ') || '—'),
          ),
        ),
      ),
    ),
  );
}

/** The picture as a file of its own: the drawing as it is on the page, with its legend and texts. */
export function chainSvgFile(): string | undefined {
  const svg = document.getElementById(CHAIN_PICTURE_ID);
  if (svg === null) return undefined;
  const copy = svg.cloneNode(true) as Element;
  copy.querySelectorAll('.chain-focus').forEach((element) => element.remove());
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
}
