// A list of findings, each with its level; the same finding said again is listed once, with how often.
import { h } from 'preact';
import type { TestResult } from '../api.ts';
import { useI18n } from '../i18n.ts';
import { collapseRepeats } from '../../../shared/report-model.ts';
import { LevelBadge } from './common.ts';

/**
 * Findings of no particular test case come under Unspecified (UNSPECIFIED from an older service):
 * shown under the page's own word for them, without the id, which is no word of its language.
 */
export const outsideTestCase = (testcase: string) => testcase.toLowerCase() === 'unspecified';

export function FindingList(props: { results: TestResult[]; withModule?: boolean }) {
  const { t, plural } = useI18n();
  return h(
    'ul',
    { class: 'finding-list' },
    collapseRepeats(props.results).map(({ result: r, times }, i) =>
      h(
        'li',
        { key: i, class: `finding level-${r.level.toLowerCase()}` },
        h(LevelBadge, { level: r.level }),
        h(
          'span',
          { class: 'message' },
          props.withModule
            ? h('span', { class: 'testcase-id' }, `${outsideTestCase(r.testcase) ? t('testcase_general') : r.testcase} `)
            : null,
          r.message,
          times > 1 ? h('span', { class: 'repeated' }, ` (${plural('repeated', times)})`) : null,
        ),
      ),
    ),
  );
}
