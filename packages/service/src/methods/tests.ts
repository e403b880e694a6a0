// start_domain_test, test_progress, get_test_results, get_test_params, get_test_history, the
// reference's newer names for them, and our get_test_report and get_test_chain.
import type { ChainAnalysis } from '@app/engine';
import { HistoryCache, type HistoryRow } from '../db/history-cache.ts';
import { enqueueTest, findTest, progressReader, resultEntries, testChain, type HistoryFilter } from '../db/tests.ts';
import type { TestParams } from '../db/test-params.ts';
import { deprecatedTimestamp, timestamp } from '../db/timestamps.ts';
import { MethodError } from '../rpc/errors.ts';
import { JsonText } from '../rpc/json-text.ts';
import { method } from '../rpc/method.ts';
import { domainName, nonNegativeInteger, testId } from '../validation/data-types.ts';
import { languageTag, messageLocale } from '../validation/language-tags.ts';
import { eitherName, object, oneOf, optional, required } from '../validation/param-rules.ts';
import type { ServiceContext } from './context.ts';
import { normaliseTestParams, testParamFields } from './test-params-rule.ts';
import { reportAnswer, resultsAnswer } from './test-results.ts';

const START_PRIORITY = 10;

export function testMethods(context: ServiceContext) {
  const db = context.database.db;
  const language = optional(languageTag(context.languageTags));
  const testProgress = progressReader(db);
  const histories = new HistoryCache(db, context.database.dialect);

  const existing = async (hashId: string) => {
    const row = await findTest(db, hashId);
    if (row === undefined) throw new MethodError('Test not found', { test_id: hashId });
    return row;
  };

  const startParams = object({ domain: required(domainName), ...testParamFields(context.profiles, context.config.queues), language });
  const startTest = ({ domain, ...given }: { domain: string } & Parameters<typeof normaliseTestParams>[1]) =>
    enqueueTest(db, normaliseTestParams(domain, given, context.profiles, START_PRIORITY), context.config.ageReusePreviousTestSeconds);

  const progressOf = async (test_id: string) => {
    const progress = await testProgress(test_id);
    if (progress === undefined) throw new MethodError('Test not found', { test_id });
    return progress;
  };

  const paramsOf = async (test_id: string) => JSON.parse((await existing(test_id)).params) as TestParams;

  /** A finished test's row and every finding stored for it. */
  const finished = async (id: string) => {
    const row = await existing(id);
    if (row.progress < 100) throw new MethodError('Test not finished', { test_id: id, progress: row.progress });
    return { row, stored: await resultEntries(db, row.id) };
  };
  const resultsOf = async (id: string, tag: string | undefined) => {
    const { row, stored } = await finished(id);
    return resultsAnswer(context.engine, row, stored, messageLocale(context.languageTags, tag));
  };
  const reportOf = async (id: string, tag: string | undefined) => {
    const { row, stored } = await finished(id);
    return reportAnswer(context.engine, row, stored, messageLocale(context.languageTags, tag));
  };

  const historyFields = {
    offset: optional(nonNegativeInteger),
    limit: optional(nonNegativeInteger),
    filter: optional(oneOf(['all', 'delegated', 'undelegated'] as const, 'filter')),
  };
  type Paging = { offset?: number; limit?: number; filter?: HistoryFilter };
  const historyOf = (rows: HistoryRow[]) =>
    rows.map((row) => ({
      id: row.hash_id,
      creation_time: deprecatedTimestamp(row.created_at),
      created_at: timestamp(row.created_at),
      undelegated: Boolean(row.undelegated),
      overall_result: row.overall_result ?? 'ok',
    }));
  // Kept per domain while its history stands still; `shape` tells the two methods' answers apart.
  const keptHistory = async (
    shape: string,
    domain: string,
    { offset, limit, filter }: Paging,
    answer: (history: ReturnType<typeof historyOf>) => unknown,
  ) =>
    new JsonText(
      await histories.answer(domain, { filter: filter ?? 'all', offset: offset ?? 0, limit: limit ?? 200 }, shape, (rows) =>
        answer(historyOf(rows)),
      ),
    );

  return {
    start_domain_test: method(startParams, { acceptsLanguage: true, run: startTest }),
    test_progress: method(object({ test_id: required(testId) }), { run: ({ test_id }) => progressOf(test_id) }),
    get_test_params: method(object({ test_id: required(testId) }), { run: ({ test_id }) => paramsOf(test_id) }),
    get_test_results: method(object({ id: required(testId), language }), {
      acceptsLanguage: true,
      run: ({ id, language: tag }) => resultsOf(id, tag),
    }),
    // Ours, beside the reference's methods: the delegation and DNSSEC chain in dnsviz grok's shape.
    get_test_chain: method(object({ id: required(testId) }), {
      run: async ({ id }) => {
        const { row } = await finished(id);
        const analysis = await testChain(db, row.id);
        if (analysis === undefined) throw new MethodError('No chain for this test', { test_id: id });
        return context.engine.chainJson(JSON.parse(analysis) as ChainAnalysis);
      },
    }),

    get_test_history: method(object({ ...historyFields, frontend_params: required(object({ domain: required(domainName) })) }), {
      run: ({ frontend_params, ...paging }) => keptHistory('history', frontend_params.domain, paging, (history) => history),
    }),

    get_test_report: method(object({ test_id: required(testId), language }), {
      acceptsLanguage: true,
      run: ({ test_id, language: tag }) => reportOf(test_id, tag),
    }),

    // The reference's newer names (Backend 11): a test is a job, its id `job_id`, and results
    // that were bare values come wrapped in an object.
    job_create: method(startParams, { acceptsLanguage: true, run: async (params) => ({ job_id: await startTest(params) }) }),
    job_status: method(object({ job_id: required(testId) }), { run: async ({ job_id }) => ({ progress: await progressOf(job_id) }) }),
    job_params: method(object({ job_id: required(testId) }), { run: ({ job_id }) => paramsOf(job_id) }),
    // Shapes as Zonemaster-Backend's RPCAPI.pm answers job_results and domain_history (the test id
    // as `job_id`, no deprecated `creation_time`).
    job_results: method(object({ job_id: required(testId), language }), {
      acceptsLanguage: true,
      run: async ({ job_id, language: tag }) => {
        const { created_at, hash_id, results, params, testcase_descriptions } = await resultsOf(job_id, tag);
        return { created_at, job_id: hash_id, results, params, testcase_descriptions };
      },
    }),
    // The reference's `params: {domain}`, or our earlier top-level `domain`.
    domain_history: method(
      eitherName(
        object({ ...historyFields, params: optional(object({ domain: required(domainName) })), domain: optional(domainName) }),
        { reference: 'params', ours: 'domain' },
        { required: true },
      ),
      {
        run: ({ params, domain, ...paging }) =>
          keptHistory('domain_history', params?.domain ?? domain ?? '', paging, (history) => ({
            history: history.map(({ id, created_at, overall_result, undelegated }) => ({
              job_id: id,
              created_at,
              overall_result,
              undelegated,
            })),
          })),
      },
    ),
  };
}
