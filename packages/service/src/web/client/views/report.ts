// A finished test's report: summary, level filters, findings by module (collapsible, marked with
// the module's worst level) and test case (with its description), export, print, parameters.
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, RpcError, type Level, type TestEvidence, type TestParams, type TestResult, type TestResults } from '../api.ts';
import { useI18n, type I18n } from '../i18n.ts';
import { Link } from '../navigation.ts';
import {
  countByLevel,
  delegationFailed,
  groupByModule,
  LEVELS,
  overallResult,
  severity,
  worstLevel,
  type ModuleGroup,
} from '../../../shared/report-model.ts';
import { reportFile, type ExportFormat } from '../report-export.ts';
import { paths } from '../../../shared/page-routes.ts';
import { specificationUrl } from '../specifications.ts';
import { asyncView, LevelBadge, OverallBadge, PageHeading } from './common.ts';
import { useAsync } from '../use-async.ts';
import { DsSuggestion, QueryLog, ReusedNotice } from './report-evidence.ts';
import { FindingList, outsideTestCase } from './finding-list.ts';
import { ComplianceTables } from './compliance-table.ts';
import { ParentDsSection } from './parent-ds.ts';
import { ZoneIntegrityPanel } from './zone-integrity-panel.ts';
import { TransportsTable } from './transports-table.ts';

export const isUndelegated = (report: TestResults) =>
  (report.params.nameservers?.length ?? 0) > 0 || (report.params.ds_info?.length ?? 0) > 0;

/** Undelegated (given name servers or DS), delegated, or neither: the parent zone delegates no such domain. */
export const kindOf = (report: TestResults, t: I18n['t'], evidence?: TestEvidence) =>
  isUndelegated(report) ? t('undelegated') : delegationFailed(report.results, tagsOf(evidence)) ? t('not_delegated') : t('delegated');

const tagsOf = (evidence: TestEvidence | undefined) => evidence?.results.map((r) => r.tag) ?? [];

/** A DS mismatch: DNSSEC02 (DS records match the zone's keys) found a problem. */
const dsMismatch = (results: readonly TestResult[]) =>
  results.some((r) => r.testcase.toLowerCase() === 'dnssec02' && severity(r.level) >= severity('WARNING'));

function download(report: TestResults, format: ExportFormat, evidence: TestEvidence | undefined): void {
  saveFile(reportFile(report, format, evidence));
}

function saveFile(file: { name: string; type: string; text: string }): void {
  const url = URL.createObjectURL(new Blob([file.text], { type: `${file.type};charset=utf-8` }));
  const link = Object.assign(document.createElement('a'), { href: url, download: file.name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function Report(props: { report: TestResults; evidence?: TestEvidence; reused?: boolean }) {
  const { t, dateTime } = useI18n();
  const { report, evidence } = props;
  const modules = groupByModule(report);
  const counts = countByLevel(report.results);
  const [shown, setShown] = useState<ReadonlySet<Level>>(new Set(LEVELS));
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(
    () => new Set(modules.filter((m) => severity(m.worst) >= severity('WARNING')).map((m) => m.module)),
  );
  const [copied, setCopied] = useState('');
  const domain = report.params.domain;
  // The chain view's code comes with the first report (serve.ts does not preload it), with the chain.
  const chain = useAsync(() => Promise.all([api.testChain(report.hash_id), import('./chain-view.ts')]), [report.hash_id]);
  // The chain view has an address of its own (#chain), so "Copy the link" shares what is shown.
  const [view, setView] = useState<'findings' | 'chain'>(() => (window.location.hash === '#chain' ? 'chain' : 'findings'));
  const showView = (next: 'findings' | 'chain') => {
    setView(next);
    history.replaceState(history.state, '', `${window.location.pathname}${window.location.search}${next === 'chain' ? '#chain' : ''}`);
  };
  const visible = report.results.some((r) => shown.has(r.level));
  // A printed report shows its parameters too (a closed <details> prints closed).
  useEffect(() => {
    const open = () => document.querySelectorAll('details.parameters').forEach((details) => ((details as HTMLDetailsElement).open = true));
    window.addEventListener('beforeprint', open);
    return () => window.removeEventListener('beforeprint', open);
  }, []);

  const toggleLevel = (level: Level) => {
    const next = new Set(shown);
    if (!next.delete(level)) next.add(level);
    setShown(next);
  };
  const toggleModule = (module: string) => {
    const next = new Set(expanded);
    if (!next.delete(module)) next.add(module);
    setExpanded(next);
  };

  return h(
    'article',
    { class: 'report' },
    h(PageHeading, null, t('report_title', { domain })),
    h(
      'p',
      { class: 'report-meta' },
      h('span', null, t('tested_at', { date: dateTime(report.created_at) })),
      h('span', { class: 'kind' }, kindOf(report, t, evidence)),
      h(Link, { href: paths.history(domain) }, t('earlier_tests')),
      h(Link, { href: `${paths.home()}?domain=${encodeURIComponent(domain)}` }, t('test_again')),
    ),
    props.reused === true && evidence !== undefined ? h(ReusedNotice, { createdAt: report.created_at, evidence }) : null,

    h(
      'section',
      { class: 'summary', 'aria-labelledby': 'summary-heading' },
      h('h2', { id: 'summary-heading' }, t('summary')),
      h(
        'p',
        { class: 'overall' },
        h('span', null, `${t('label_colon', { label: t('overall_result') })} `),
        h(OverallBadge, { result: overallResult(report.results) }),
      ),
      h(
        'ul',
        { class: 'level-counts' },
        [...LEVELS].reverse().map((level) => h('li', { key: level }, h(LevelBadge, { level }), ' ', h('strong', null, counts[level]))),
      ),
      evidence !== undefined && dsMismatch(report.results) ? h(DsSuggestion, { evidence }) : null,
    ),

    h(
      'div',
      { class: 'toolbar' },
      h(
        'fieldset',
        { class: 'level-filter' },
        h('legend', null, t('show_levels')),
        [...LEVELS]
          .reverse()
          .map((level) =>
            h(
              'label',
              { key: level, class: 'filter' },
              h('input', { type: 'checkbox', checked: shown.has(level), onChange: () => toggleLevel(level) }),
              h(LevelBadge, { level }),
              h('span', { class: 'count' }, counts[level]),
            ),
          ),
      ),
      h(
        'div',
        { class: 'buttons' },
        h(
          'button',
          { type: 'button', class: 'secondary', onClick: () => setExpanded(new Set(modules.map((m) => m.module))) },
          t('expand_all'),
        ),
        h('button', { type: 'button', class: 'secondary', onClick: () => setExpanded(new Set()) }, t('collapse_all')),
      ),
      h(
        'div',
        { class: 'buttons', role: 'group', 'aria-label': t('export') },
        h('span', { class: 'group-label', 'aria-hidden': 'true' }, t('label_colon', { label: t('export') })),
        (['json', 'csv', 'txt'] as const).map((format) =>
          h(
            'button',
            { key: format, type: 'button', class: 'secondary', onClick: () => download(report, format, evidence) },
            t(`export_${format}`),
          ),
        ),
        chain.status === 'done'
          ? h(
              'button',
              { type: 'button', class: 'secondary', onClick: () => saveChain(report, chain.value[1].chainSvgFile()) },
              t('chain_export_svg'),
            )
          : null,
        h('button', { type: 'button', class: 'secondary', onClick: () => window.print() }, t('print')),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onClick: () =>
              navigator.clipboard.writeText(window.location.href).then(
                () => setCopied(t('link_copied')),
                () => setCopied(window.location.href),
              ),
          },
          t('copy_link'),
        ),
        h('span', { role: 'status', class: 'status' }, copied),
      ),
    ),

    h(ViewTabs, { view, onChange: showView }),
    h(
      'div',
      { id: 'findings-panel', role: 'tabpanel', 'aria-labelledby': 'tab-findings', class: 'view-panel', hidden: view !== 'findings' },
      h(
        'section',
        { class: 'findings', 'aria-labelledby': 'findings-heading' },
        h('h2', { id: 'findings-heading' }, t('findings')),
        (evidence?.query_log ?? null) !== null ? h('p', { class: 'hint' }, t('query_log_hint')) : null,
        visible ? null : h('p', null, t('nothing_at_levels')),
        modules.map((group) =>
          h(ModuleSection, {
            key: group.module,
            group,
            shown,
            open: expanded.has(group.module),
            onToggle: () => toggleModule(group.module),
            testId: report.hash_id,
            queryCounts: evidence?.query_counts ?? {},
            notDelegated: !isUndelegated(report) && delegationFailed(report.results, tagsOf(evidence)),
          }),
        ),
      ),
      report.compliance !== undefined && report.compliance.length > 0
        ? h(ComplianceTables, { compliance: report.compliance, evidence })
        : null,
      report.parent_ds !== undefined ? h(ParentDsSection, { parentDs: report.parent_ds }) : null,
      report.zone_integrity === undefined ? null : h(ZoneIntegrityPanel, { summary: report.zone_integrity }),
      report.transports !== undefined && report.transports.length > 0 ? h(TransportsTable, { transports: report.transports }) : null,
    ),
    h(
      'div',
      { id: 'chain-panel', role: 'tabpanel', 'aria-labelledby': 'tab-chain', class: 'view-panel', hidden: view !== 'chain' },
      h(
        'section',
        { class: 'chain', 'aria-labelledby': 'chain-heading' },
        h('h2', { id: 'chain-heading' }, t('chain_title')),
        h('p', { class: 'hint' }, t('chain_intro')),
        chain.status === 'failed' && chain.error instanceof RpcError
          ? h('p', { class: 'hint' }, t('chain_unavailable'))
          : asyncView(chain, ([value, { ChainView }]) => h(ChainView, { chain: value, domain, results: report.results, evidence })),
      ),
    ),

    h(Parameters, { report }),
  );
}

const VIEWS = ['findings', 'chain'] as const;

/** The report's two views as tabs (WAI-ARIA's pattern: arrows move between them); print shows both. */
function ViewTabs(props: { view: 'findings' | 'chain'; onChange: (view: 'findings' | 'chain') => void }) {
  const { t } = useI18n();
  const keys = (event: KeyboardEvent) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = VIEWS[(VIEWS.indexOf(props.view) + step + VIEWS.length) % VIEWS.length];
    props.onChange(next);
    document.getElementById(`tab-${next}`)?.focus();
  };
  return h(
    'div',
    { class: 'view-tabs', role: 'tablist', 'aria-label': t('report_views') },
    VIEWS.map((view) =>
      h(
        'button',
        {
          key: view,
          id: `tab-${view}`,
          type: 'button',
          role: 'tab',
          'aria-selected': props.view === view ? 'true' : 'false',
          'aria-controls': `${view}-panel`,
          tabIndex: props.view === view ? 0 : -1,
          onClick: () => props.onChange(view),
          onKeyDown: keys,
        },
        t(view === 'findings' ? 'findings' : 'chain_tab'),
      ),
    ),
  );
}

function saveChain(report: TestResults, text: string | undefined): void {
  if (text !== undefined) saveFile({ name: `${report.params.domain || 'root'}-${report.hash_id}-chain.svg`, type: 'image/svg+xml', text });
}

/** Modules the extended profile adds, which Zonemaster does not have. */
const beyondReference = new Set(['COMPLIANCE', 'AUTOMATION', 'ZONE_INTEGRITY', 'TRANSPORT']);

function ModuleSection(props: {
  group: ModuleGroup;
  shown: ReadonlySet<Level>;
  open: boolean;
  onToggle: () => void;
  testId: string;
  queryCounts: Record<string, number>;
  notDelegated: boolean;
}) {
  const { t } = useI18n();
  const { group, shown } = props;
  const results = group.results.filter((r) => shown.has(r.level));
  if (results.length === 0) return null;
  const bodyId = `module-${group.module.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return h(
    'section',
    { class: `module worst-${group.worst.toLowerCase()}` },
    h(
      'h3',
      null,
      h(
        'button',
        {
          type: 'button',
          class: 'module-toggle',
          'aria-expanded': props.open ? 'true' : 'false',
          'aria-controls': bodyId,
          onClick: props.onToggle,
        },
        h('span', { class: 'chevron', 'aria-hidden': 'true' }),
        h(
          'span',
          { class: 'module-name' },
          group.module,
          beyondReference.has(group.module) ? [' ', h('span', { class: 'beyond' }, t('beyond_zonemaster'))] : null,
        ),
        h(
          LevelBadge,
          { level: group.worst },
          h('span', { class: 'visually-hidden' }, t('worst_level', { level: t(`level_${group.worst}`) })),
          h('span', { 'aria-hidden': 'true' }, t(`level_${group.worst}`)),
        ),
        h('span', { class: 'module-count' }, t('finding_count', { count: results.length })),
      ),
    ),
    h(
      'div',
      { id: bodyId, class: 'module-body', hidden: !props.open },
      group.testcases.map((testcase) => {
        const shownResults = testcase.results.filter((r) => shown.has(r.level));
        if (shownResults.length === 0) return null;
        const general = outsideTestCase(testcase.testcase);
        const described = !general && testcase.description !== testcase.testcase;
        // A description says what is checked; when the check failed the heading says so, rather than read as a fact.
        // Basic01's description says the parent delegates the domain: not so when there is no delegation, whatever its findings.
        const failed =
          severity(worstLevel(testcase.results) ?? 'INFO') >= severity('ERROR') ||
          (props.notDelegated && testcase.testcase.toLowerCase() === 'basic01');
        const specification = specificationUrl(group.module, testcase.testcase);
        const id =
          specification === undefined
            ? h('span', { class: 'testcase-id' }, testcase.testcase)
            : h(
                'a',
                {
                  class: 'testcase-id',
                  href: specification,
                  target: '_blank',
                  rel: 'noopener noreferrer',
                  title: t('specification_of', { testcase: testcase.testcase }),
                },
                testcase.testcase,
              );
        return h(
          'section',
          { key: testcase.testcase, class: 'testcase' },
          h(
            'h4',
            null,
            general
              ? t('testcase_general')
              : described
                ? failed
                  ? t('testcase_not_met', { description: testcase.description })
                  : testcase.description
                : testcase.testcase,
            described ? [' ', id] : null,
          ),
          h(FindingList, { results: shownResults }),
          h(QueryLog, { testId: props.testId, testcase: testcase.testcase, count: props.queryCounts[testcase.testcase] ?? 0 }),
        );
      }),
    ),
  );
}

/** A run's parameters as label and value: profile, IP versions, and the name servers and DS records it was given. */
export function parameterRows(params: TestParams, t: I18n['t']): [string, string][] {
  const rows: [string, string][] = [
    [t('profile'), params.profile ?? 'default'],
    [t('ip_versions'), [params.ipv4 !== false ? 'IPv4' : '', params.ipv6 !== false ? 'IPv6' : ''].filter(Boolean).join(', ')],
  ];
  if (params.nameservers?.length)
    rows.push([t('nameservers'), params.nameservers.map((n) => (n.ip ? `${n.ns} (${n.ip})` : n.ns)).join(', ')]);
  if (params.ds_info?.length)
    rows.push([t('ds_records'), params.ds_info.map((d) => `${d.keytag} ${d.algorithm} ${d.digtype} ${d.digest}`).join(', ')]);
  return rows;
}

/** The parameters in one line, for history and comparison. */
export function ParameterLine(props: { params: TestParams }) {
  const { t } = useI18n();
  return h(
    'span',
    { class: 'run-parameters' },
    parameterRows(props.params, t)
      .map(([label, value]) => `${t('label_colon', { label })} ${value}`)
      .join(' · '),
  );
}

function Parameters(props: { report: TestResults }) {
  const { t } = useI18n();
  const { params } = props.report;
  const rows: [string, string][] = [[t('domain'), params.domain], ...parameterRows(params, t)];
  return h(
    'details',
    { class: 'parameters' },
    h('summary', null, t('test_parameters')),
    h(
      'dl',
      null,
      rows.map(([term, value]) => [h('dt', { key: `${term}-t` }, term), h('dd', { key: `${term}-d` }, value)]),
    ),
  );
}
