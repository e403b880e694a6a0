// A finished test's report: summary, level filters, findings by module (collapsible, marked with
// the module's worst level) and test case (with its description), export, print, parameters.
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Level, TestResult, TestResults } from '../api.ts';
import { useI18n, type I18n } from '../i18n.ts';
import { Link } from '../navigation.ts';
import { collapseRepeats, countByLevel, groupByModule, LEVELS, overallResult, severity, type ModuleGroup } from '../report-model.ts';
import { reportFile, type ExportFormat } from '../report-export.ts';
import { paths } from '../routes.ts';
import { LevelBadge, OverallBadge, PageHeading } from './common.ts';

export const isUndelegated = (report: TestResults) => (report.params.nameservers?.length ?? 0) > 0 || (report.params.ds_info?.length ?? 0) > 0;

function download(report: TestResults, format: ExportFormat): void {
  const file = reportFile(report, format);
  const url = URL.createObjectURL(new Blob([file.text], { type: `${file.type};charset=utf-8` }));
  const link = Object.assign(document.createElement('a'), { href: url, download: file.name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function Report(props: { report: TestResults }) {
  const { t, dateTime } = useI18n();
  const { report } = props;
  const modules = groupByModule(report);
  const counts = countByLevel(report.results);
  const [shown, setShown] = useState<ReadonlySet<Level>>(new Set(LEVELS));
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set(modules.filter((m) => severity(m.worst) >= severity('WARNING')).map((m) => m.module)));
  const [copied, setCopied] = useState('');
  const domain = report.params.domain;
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

  return h('article', { class: 'report' },
    h(PageHeading, null, t('report_title', { domain })),
    h('p', { class: 'report-meta' },
      h('span', null, t('tested_at', { date: dateTime(report.created_at) })),
      h('span', { class: 'kind' }, isUndelegated(report) ? t('undelegated') : t('delegated')),
      h(Link, { href: paths.history(domain) }, t('earlier_tests')),
      h(Link, { href: `${paths.home()}?domain=${encodeURIComponent(domain)}` }, t('test_again'))),

    h('section', { class: 'summary', 'aria-labelledby': 'summary-heading' },
      h('h2', { id: 'summary-heading' }, t('summary')),
      h('p', { class: 'overall' }, h('span', null, `${t('overall_result')}: `), h(OverallBadge, { result: overallResult(report.results) })),
      h('ul', { class: 'level-counts' },
        [...LEVELS].reverse().map((level) => h('li', { key: level }, h(LevelBadge, { level }), ' ', h('strong', null, counts[level]))))),

    h('div', { class: 'toolbar' },
      h('fieldset', { class: 'level-filter' },
        h('legend', null, t('show_levels')),
        [...LEVELS].reverse().map((level) =>
          h('label', { key: level, class: 'filter' },
            h('input', { type: 'checkbox', checked: shown.has(level), onChange: () => toggleLevel(level) }),
            h(LevelBadge, { level }),
            h('span', { class: 'count' }, counts[level])))),
      h('div', { class: 'buttons' },
        h('button', { type: 'button', class: 'secondary', onClick: () => setExpanded(new Set(modules.map((m) => m.module))) }, t('expand_all')),
        h('button', { type: 'button', class: 'secondary', onClick: () => setExpanded(new Set()) }, t('collapse_all'))),
      h('div', { class: 'buttons', role: 'group', 'aria-label': t('export') },
        h('span', { class: 'group-label', 'aria-hidden': 'true' }, `${t('export')}:`),
        (['json', 'csv', 'txt'] as const).map((format) =>
          h('button', { key: format, type: 'button', class: 'secondary', onClick: () => download(report, format) }, t(`export_${format}`))),
        h('button', { type: 'button', class: 'secondary', onClick: () => window.print() }, t('print')),
        h('button', {
          type: 'button',
          class: 'secondary',
          onClick: () => navigator.clipboard.writeText(window.location.href).then(() => setCopied(t('link_copied')), () => setCopied(window.location.href)),
        }, t('copy_link')),
        h('span', { role: 'status', class: 'status' }, copied))),

    h('section', { class: 'findings', 'aria-labelledby': 'findings-heading' },
      h('h2', { id: 'findings-heading' }, t('findings')),
      visible ? null : h('p', null, t('nothing_at_levels')),
      modules.map((group) => h(ModuleSection, { key: group.module, group, shown, open: expanded.has(group.module), onToggle: () => toggleModule(group.module) }))),

    h(Parameters, { report }));
}

/**
 * A test case's id as a reader sees it. The engine files the findings of no particular test case
 * under Unspecified (UNSPECIFIED in results stored before engine 9.0.1 was the reference), which has
 * no description and is no word of the page's language.
 */
const testcaseName = (testcase: string, t: I18n['t']) => (testcase.toUpperCase() === 'UNSPECIFIED' ? t('testcase_general') : testcase);

function ModuleSection(props: { group: ModuleGroup; shown: ReadonlySet<Level>; open: boolean; onToggle: () => void }) {
  const { t } = useI18n();
  const { group, shown } = props;
  const results = group.results.filter((r) => shown.has(r.level));
  if (results.length === 0) return null;
  const bodyId = `module-${group.module.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return h('section', { class: `module worst-${group.worst.toLowerCase()}` },
    h('h3', null,
      h('button', { type: 'button', class: 'module-toggle', 'aria-expanded': props.open ? 'true' : 'false', 'aria-controls': bodyId, onClick: props.onToggle },
        h('span', { class: 'chevron', 'aria-hidden': 'true' }),
        h('span', { class: 'module-name' }, group.module),
        h(LevelBadge, { level: group.worst },
          h('span', { class: 'visually-hidden' }, t('worst_level', { level: t(`level_${group.worst}`) })),
          h('span', { 'aria-hidden': 'true' }, t(`level_${group.worst}`))),
        h('span', { class: 'module-count' }, t('finding_count', { count: results.length })))),
    h('div', { id: bodyId, class: 'module-body', hidden: !props.open },
      group.testcases.map((testcase) => {
        const shownResults = testcase.results.filter((r) => shown.has(r.level));
        if (shownResults.length === 0) return null;
        const described = testcase.description !== testcase.testcase;
        return h('section', { key: testcase.testcase, class: 'testcase' },
          h('h4', null, described ? testcase.description : testcaseName(testcase.testcase, t), described ? h('span', { class: 'testcase-id' }, ` ${testcase.testcase}`) : null),
          h(FindingList, { results: shownResults }));
      })));
}

export function FindingList(props: { results: TestResult[]; withModule?: boolean }) {
  const { t, plural } = useI18n();
  return h('ul', { class: 'finding-list' },
    collapseRepeats(props.results).map(({ result: r, times }, i) =>
      h('li', { key: i, class: `finding level-${r.level.toLowerCase()}` },
        h(LevelBadge, { level: r.level }),
        h('span', { class: 'message' },
          props.withModule ? h('span', { class: 'testcase-id' }, `${testcaseName(r.testcase, t)} `) : null,
          r.message,
          times > 1 ? h('span', { class: 'repeated' }, ` (${plural('repeated', times)})`) : null))));
}

function Parameters(props: { report: TestResults }) {
  const { t } = useI18n();
  const { params } = props.report;
  const rows: [string, string][] = [
    [t('domain'), params.domain],
    [t('profile'), params.profile ?? 'default'],
    [t('ip_versions'), [params.ipv4 !== false ? 'IPv4' : '', params.ipv6 !== false ? 'IPv6' : ''].filter(Boolean).join(', ')],
  ];
  if (params.nameservers?.length) rows.push([t('nameservers'), params.nameservers.map((n) => (n.ip ? `${n.ns} (${n.ip})` : n.ns)).join(', ')]);
  if (params.ds_info?.length) rows.push([t('ds_records'), params.ds_info.map((d) => `${d.keytag} ${d.algorithm} ${d.digtype} ${d.digest}`).join(', ')]);
  return h('details', { class: 'parameters' },
    h('summary', null, t('test_parameters')),
    h('dl', null, rows.map(([term, value]) => [h('dt', { key: `${term}-t` }, term), h('dd', { key: `${term}-d` }, value)])));
}
