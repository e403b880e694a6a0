// start_domain_test, test_progress, get_test_results, get_test_params, get_test_history, and our get_test_chain.
import type { ChainAnalysis, Level } from '@app/engine';
import { enqueueTest, findTest, progressReader, resultEntries, testChain, testHistory } from '../db/tests.ts';
import type { TestParams } from '../db/test-params.ts';
import { reportedTestCase } from '../test-case.ts';
import { deprecatedTimestamp, timestamp } from '../db/timestamps.ts';
import { MethodError } from '../rpc/errors.ts';
import { method } from '../rpc/method.ts';
import { domainName, nonNegativeInteger, testId } from '../validation/data-types.ts';
import { languageTag, messageLocale } from '../validation/language-tags.ts';
import { object, oneOf, optional, required } from '../validation/schema.ts';
import type { ServiceContext } from './context.ts';
import { normaliseTestParams, testParamFields } from './test-params-rule.ts';

const START_PRIORITY = 10;
const HIDDEN_LEVELS = new Set(['DEBUG', 'DEBUG2', 'DEBUG3']);

export function testMethods(context: ServiceContext) {
  const db = context.database.db;
  const language = optional(languageTag(context.languageTags));
  const testProgress = progressReader(db);

  const existing = async (hashId: string) => {
    const row = await findTest(db, hashId);
    if (row === undefined) throw new MethodError('Test not found', { test_id: hashId });
    return row;
  };

  return {
    start_domain_test: method(object({ domain: required(domainName), ...testParamFields(context.profiles), language }), {
      acceptsLanguage: true,
      run: ({ domain, ...given }) =>
        enqueueTest(db, normaliseTestParams(domain, given, context.profiles, START_PRIORITY), context.config.ageReusePreviousTestSeconds),
    }),

    test_progress: method(object({ test_id: required(testId) }), {
      run: async ({ test_id }) => {
        const progress = await testProgress(test_id);
        if (progress === undefined) throw new MethodError('Test not found', { test_id });
        return progress;
      },
    }),

    get_test_params: method(object({ test_id: required(testId) }), {
      run: async ({ test_id }) => JSON.parse((await existing(test_id)).params) as TestParams,
    }),

    get_test_results: method(object({ id: required(testId), language }), {
      acceptsLanguage: true,
      run: async ({ id, language: tag }) => {
        const row = await existing(id);
        if (row.progress < 100) throw new MethodError('Test not finished', { test_id: id, progress: row.progress });
        const engine = context.engine;
        const locale = messageLocale(context.languageTags, tag);
        const entries = (await resultEntries(db, row.id)).filter((e) => !HIDDEN_LEVELS.has(e.level));
        const results = entries.map((entry) => {
          const args = JSON.parse(entry.args) as Record<string, string | number | boolean | null>;
          const testcase = reportedTestCase(entry.testcase);
          const finding = { module: entry.module, testcase, tag: entry.tag, level: entry.level as Level, args, timestamp: entry.timestamp };
          const result: Record<string, string> = {
            module: entry.module,
            message: engine.formatFinding(finding, locale),
            level: entry.level,
            testcase,
          };
          if (entry.module === 'NAMESERVER' && typeof args.ns === 'string') result.ns = args.ns;
          return result;
        });
        // As the reference builds it: one description for each test case the results name.
        const descriptions = Object.fromEntries([...new Set(results.map((r) => r.testcase))].map((testcase) => [testcase, engine.testCaseDescription(testcase, locale)]));
        return {
          creation_time: deprecatedTimestamp(row.created_at),
          created_at: timestamp(row.created_at),
          hash_id: row.hash_id,
          params: JSON.parse(row.params) as TestParams,
          results,
          testcase_descriptions: descriptions,
        };
      },
    }),

    // Ours, beside the reference's methods: the delegation and DNSSEC chain in dnsviz grok's shape.
    get_test_chain: method(object({ id: required(testId) }), {
      run: async ({ id }) => {
        const row = await existing(id);
        if (row.progress < 100) throw new MethodError('Test not finished', { test_id: id, progress: row.progress });
        const analysis = await testChain(db, row.id);
        if (analysis === undefined) throw new MethodError('No chain for this test', { test_id: id });
        return context.engine.chainJson(JSON.parse(analysis) as ChainAnalysis);
      },
    }),

    get_test_history: method(object({
        offset: optional(nonNegativeInteger),
        limit: optional(nonNegativeInteger),
        filter: optional(oneOf(['all', 'delegated', 'undelegated'] as const, 'filter')),
        frontend_params: required(object({ domain: required(domainName) })),
      }), {
      run: async ({ offset, limit, filter, frontend_params }) => {
        const rows = await testHistory(db, frontend_params.domain, filter ?? 'all', offset ?? 0, limit ?? 200);
        return rows.map((row) => ({
          id: row.hash_id,
          creation_time: deprecatedTimestamp(row.created_at),
          created_at: timestamp(row.created_at),
          undelegated: Boolean(row.undelegated),
          overall_result: row.overall_result ?? 'ok',
        }));
      },
    }),
  };
}
