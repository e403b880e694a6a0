// Every method over real HTTP on loopback, on each database: validation rules and error rows.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import type { Level } from '@app/engine';
import { claimNextTest, finishTest } from '../src/db/queue.ts';
import { writeConfigFixture } from './config-fixture.ts';
import { useService, type Harness } from './rpc-harness.ts';
import { invalidAt, table } from './rpc-table.ts';

// The agent that claims tests in these tests.
const claimant = { agent: 'test', leaseSeconds: 600 };

const iniFile = writeConfigFixture();
const isTestId = (value: unknown) => assert.match(String(value), /^[0-9a-f]{16}$/);
const digest40 = 'a'.repeat(40);
const label63 = 'a'.repeat(63);

async function paramsOf(h: Harness, params: Record<string, unknown>) {
  const started = await h.call('start_domain_test', params);
  assert.equal(started.error, undefined, JSON.stringify(started.error));
  return (await h.call('get_test_params', { test_id: started.result })).result as Record<string, unknown>;
}

/** Runs the queue as an agent would: claims every waiting test and finishes it with entries at these levels. */
async function finishAllWaiting(h: Harness, levels: Level[] = ['INFO']): Promise<string[]> {
  const { db, dialect } = h.service.context.database;
  const done: string[] = [];
  for (let claimed = await claimNextTest(db, dialect, 0, claimant); claimed; claimed = await claimNextTest(db, dialect, 0, claimant)) {
    const entries = levels.map((level, i) => ({
      module: i === 0 ? 'NAMESERVER' : 'BASIC',
      testcase: i === 0 ? 'Nameserver01' : 'Basic01',
      tag: `TAG_${level}`,
      level,
      args: { ns: 'ns1.example.se' },
      timestamp: i,
    }));
    assert.equal(await finishTest(db, claimed.hashId, entries), true);
    done.push(claimed.hashId);
  }
  return done;
}

for (const target of await testDatabaseTargets()) {
  describe(`JSON-RPC methods on ${target.name}`, { skip: target.skip }, () => {
    const h = useService(target, (c) => c, iniFile);

    describe('version_info, profile_names, get_language_tags', () => {
      table(h, 'profile_names', [
        {
          name: 'public profiles in lower case, with default and extended, without private ones',
          result: (r) => assert.deepEqual(r, ['default', 'extended', 'ipv4-only']),
        },
        { name: 'params given as an empty object', params: {}, result: (r) => assert.ok(Array.isArray(r)) },
        { name: 'extra params are refused', params: { x: 1 }, error: invalidAt(['/x', 'Unknown property']) },
        { name: 'params as an array are refused', params: [], error: invalidAt(['', 'Expected an object']) },
      ]);
      table(h, 'get_language_tags', [
        {
          name: 'both forms of the eight default languages',
          result: (r) =>
            assert.deepEqual(r, [
              'da',
              'da_DK',
              'en',
              'en_US',
              'es',
              'es_ES',
              'fi',
              'fi_FI',
              'fr',
              'fr_FR',
              'nb',
              'nb_NO',
              'sl',
              'sl_SI',
              'sv',
              'sv_SE',
            ]),
        },
        { name: 'extra params are refused', params: { language: 'en' }, error: invalidAt(['/language', 'Unknown property']) },
      ]);
      table(h, 'version_info', [
        { name: 'extra params are refused', params: { verbose: true }, error: invalidAt(['/verbose', 'Unknown property']) },
      ]);
    });

    describe('start_domain_test', () => {
      table(h, 'start_domain_test', [
        { name: 'a plain domain gives a test id', params: { domain: 'example.se' }, result: isTestId },
        { name: 'the root zone', params: { domain: '.' }, result: isTestId },
        { name: 'params missing', error: invalidAt(['/domain', 'Missing property']) },
        { name: 'domain missing', params: { ipv4: true }, error: invalidAt(['/domain', 'Missing property']) },
        { name: 'params not an object', params: ['example.se'], error: invalidAt(['', 'Expected an object']) },
        { name: 'extra property', params: { domain: 'example.se', colour: 'red' }, error: invalidAt(['/colour', 'Unknown property']) },
        { name: 'empty domain', params: { domain: '' }, error: invalidAt(['/domain', 'Domain name is empty.']) },
        {
          name: 'one character that is not a dot',
          params: { domain: 'a' },
          error: invalidAt(['/domain', 'A domain name of one character must be a dot.']),
        },
        { name: 'repeated dots', params: { domain: 'example..se' }, error: invalidAt(['/domain', 'Domain name has repeated dots.']) },
        {
          name: 'repeated unicode dots',
          params: { domain: 'example\u3002\uFF0Ese' },
          error: invalidAt(['/domain', 'Domain name has repeated dots.']),
        },
        { name: 'leading dot', params: { domain: '.example.se' }, error: invalidAt(['/domain', 'Domain name starts with a dot.']) },
        { name: 'a label of 63 characters is fine', params: { domain: `${label63}.se` }, result: isTestId },
        {
          name: 'a label of 64 characters',
          params: { domain: `a${label63}.se` },
          error: invalidAt(['/domain', /label that is too long \(more than 63 characters\)/]),
        },
        {
          name: 'an IDN label too long only after conversion',
          params: { domain: `${'ä'.repeat(60)}.se` },
          error: invalidAt(['/domain', /label that is too long/]),
        },
        { name: '253 characters is fine', params: { domain: `${label63}.${label63}.${label63}.${'b'.repeat(61)}` }, result: isTestId },
        {
          name: '254 characters with a final dot is fine',
          params: { domain: `${label63}.${label63}.${label63}.${'b'.repeat(61)}.` },
          result: isTestId,
        },
        {
          name: 'more than 253 characters',
          params: { domain: `${label63}.${label63}.${label63}.${'b'.repeat(62)}` },
          error: invalidAt(['/domain', 'Domain name is too long (more than 253 characters with no final dot).']),
        },
        {
          name: 'a label that breaks IDNA',
          params: { domain: '\u0301abc.se' },
          error: invalidAt(['/domain', /not a valid internationalized name/]),
        },
        { name: 'any ASCII characters are allowed', params: { domain: '_dmarc.ex ample.se' }, result: isTestId },
        { name: 'domain as an array', params: { domain: ['example.se'] }, error: invalidAt(['/domain', 'Expected a string']) },
        { name: 'domain as an object', params: { domain: { name: 'example.se' } }, error: invalidAt(['/domain', 'Expected a string']) },
        { name: 'domain null', params: { domain: null }, error: invalidAt(['/domain', 'Expected a string']) },
        {
          name: 'domain with a NUL byte',
          params: { domain: 'exa\u0000mple.se' },
          error: invalidAt(['/domain', 'Contains a NUL character']),
        },
        {
          name: 'name server without ns',
          params: { domain: 'example.se', nameservers: [{ ip: '192.0.2.1' }] },
          error: invalidAt(['/nameservers/0/ns', 'Missing property']),
        },
        {
          name: 'name server with a bad IP',
          params: {
            domain: 'example.se',
            nameservers: [
              { ns: 'ns1.example.se', ip: '192.0.2.1' },
              { ns: 'ns2.example.se', ip: '192.0.2.256' },
            ],
          },
          error: invalidAt(['/nameservers/1/ip', 'Not a valid IPv4 or IPv6 address']),
        },
        {
          name: 'name server with an IPv6 zone index',
          params: { domain: 'example.se', nameservers: [{ ns: 'ns1.example.se', ip: 'fe80::1%eth0' }] },
          error: invalidAt(['/nameservers/0/ip', 'Not a valid IPv4 or IPv6 address']),
        },
        {
          name: 'name server with an extra property',
          params: { domain: 'example.se', nameservers: [{ ns: 'ns1.example.se', ttl: 5 }] },
          error: invalidAt(['/nameservers/0/ttl', 'Unknown property']),
        },
        {
          name: 'nameservers as an object',
          params: { domain: 'example.se', nameservers: { ns: 'ns1.example.se' } },
          error: invalidAt(['/nameservers', 'Expected an array']),
        },
        {
          name: 'name server as an array',
          params: { domain: 'example.se', nameservers: [['ns1.example.se', '192.0.2.1']] },
          error: invalidAt(['/nameservers/0', 'Expected an object']),
        },
        {
          name: 'DS with 40, 64 and 96 hex digits',
          params: {
            domain: 'example.se',
            ds_info: [40, 64, 96].map((n) => ({ keytag: 1, algorithm: 8, digtype: 2, digest: 'aB'.repeat(n / 2) })),
          },
          result: isTestId,
        },
        {
          name: 'DS digest of a wrong length',
          params: { domain: 'example.se', ds_info: [{ keytag: 1, algorithm: 8, digtype: 2, digest: 'a'.repeat(41) }] },
          error: invalidAt(['/ds_info/0/digest', 'Digest must be 40, 64 or 96 hexadecimal characters']),
        },
        {
          name: 'DS digest not hex',
          params: { domain: 'example.se', ds_info: [{ keytag: 1, algorithm: 8, digtype: 2, digest: 'g'.repeat(40) }] },
          error: invalidAt(['/ds_info/0/digest', 'Digest must be 40, 64 or 96 hexadecimal characters']),
        },
        {
          name: 'DS with a negative algorithm',
          params: { domain: 'example.se', ds_info: [{ keytag: 1, algorithm: -1, digtype: 2, digest: digest40 }] },
          error: invalidAt(['/ds_info/0/algorithm', 'Must be zero or greater']),
        },
        {
          name: 'DS with a keytag that is not a number',
          params: { domain: 'example.se', ds_info: [{ keytag: 'x', algorithm: 8, digtype: 2, digest: digest40 }] },
          error: invalidAt(['/ds_info/0/keytag', 'Expected an integer']),
        },
        {
          name: 'DS missing all but digest',
          params: { domain: 'example.se', ds_info: [{ digest: digest40 }] },
          error: invalidAt(
            ['/ds_info/0/keytag', 'Missing property'],
            ['/ds_info/0/algorithm', 'Missing property'],
            ['/ds_info/0/digtype', 'Missing property'],
          ),
        },
        { name: 'unknown profile', params: { domain: 'example.se', profile: 'nosuch' }, error: invalidAt(['/profile', 'Unknown profile']) },
        {
          name: 'profile name of a bad form',
          params: { domain: 'example.se', profile: '-x-' },
          error: invalidAt(['/profile', 'Not a valid profile name']),
        },
        {
          name: 'profile name of 33 characters',
          params: { domain: 'example.se', profile: 'p'.repeat(33) },
          error: invalidAt(['/profile', 'Not a valid profile name']),
        },
        { name: 'a private profile may be used', params: { domain: 'example.se', profile: 'SECRET' }, result: isTestId },
        {
          name: 'client id of 50 allowed characters',
          params: { domain: 'example.se', client_id: 'Gui v1.0+a~b_c:d '.padEnd(50, 'x') },
          result: isTestId,
        },
        {
          name: 'client id of 51 characters',
          params: { domain: 'example.se', client_id: 'x'.repeat(51) },
          error: invalidAt(['/client_id', 'Not a valid client id']),
        },
        {
          name: 'client id with a slash',
          params: { domain: 'example.se', client_id: 'a/b' },
          error: invalidAt(['/client_id', 'Not a valid client id']),
        },
        {
          name: 'client version empty',
          params: { domain: 'example.se', client_version: '' },
          error: invalidAt(['/client_version', 'Not a valid client version']),
        },
        {
          name: 'priority not a number',
          params: { domain: 'example.se', priority: 'high' },
          error: invalidAt(['/priority', 'Expected an integer']),
        },
        { name: 'queue as an array', params: { domain: 'example.se', queue: [1] }, error: invalidAt(['/queue', 'Expected an integer']) },
        {
          name: 'queue the configuration does not list',
          params: { domain: 'example.se', queue: 10 },
          error: invalidAt(['/queue', 'Not a queue of this service (these are: 0-9)']),
        },
        {
          name: 'negative queue',
          params: { domain: 'example.se', queue: '-1' },
          error: invalidAt(['/queue', 'Not a queue of this service (these are: 0-9)']),
        },
        {
          name: 'language of a bad form',
          params: { domain: 'example.se', language: 'French' },
          error: invalidAt(['/language', /Not a language tag/]),
        },
        {
          name: 'language not configured',
          params: { domain: 'example.se', language: 'de' },
          error: invalidAt(['/language', 'Unsupported language tag']),
        },
        {
          name: 'deprecated language tag of another country',
          params: { domain: 'example.se', language: 'fr_BE' },
          error: invalidAt(['/language', 'Unsupported language tag']),
        },
        {
          name: 'several faults at once, in order',
          params: { domain: '', profile: 'nosuch', extra: 1 },
          error: invalidAt(['/extra', 'Unknown property'], ['/domain', 'Domain name is empty.'], ['/profile', 'Unknown profile']),
        },
      ]);

      test('validation messages follow the language, in both tag forms', async () => {
        const expected: Record<string, string> = {
          da: 'Domænenavnet er tomt.',
          en: 'Domain name is empty.',
          es: 'El nombre de dominio está vacío.',
          fi: 'Verkkotunnus on tyhjä.',
          fr: 'Le nom de domaine est vide.',
          nb: 'Domenenavnet er tomt.',
          sv: 'Domännamnet är tomt.',
        };
        for (const [language, message] of Object.entries(expected)) {
          for (const tag of [
            language,
            `${language}_${{ da: 'DK', en: 'US', es: 'ES', fi: 'FI', fr: 'FR', nb: 'NO', sv: 'SE' }[language]}`,
          ]) {
            const reply = await h.call('start_domain_test', { domain: '', language: tag });
            assert.deepEqual(reply.error?.data, [{ path: '/domain', message }], tag);
          }
        }
        const fallback = await h.call('start_domain_test', { domain: '', language: 'xx' });
        assert.deepEqual(fallback.error?.data, [
          { path: '/domain', message: 'Domain name is empty.' },
          { path: '/language', message: 'Unsupported language tag' },
        ]);
      });

      test('params are normalised: A-labels, lower case, no final dot, profile defaults', async () => {
        const params = await paramsOf(h, { domain: 'Exämple\uFF61SE.', profile: 'IPV4-ONLY', client_id: 'gui' });
        assert.deepEqual(params, {
          domain: 'xn--exmple-cua.se',
          ipv4: true,
          ipv6: false,
          nameservers: [],
          ds_info: [],
          profile: 'ipv4-only',
          priority: 10,
          queue: 0,
          client_id: 'gui',
        });
        const secret = await paramsOf(h, { domain: 'a.example.se', profile: 'secret' });
        assert.equal(secret.ipv4, false);
        assert.equal(secret.ipv6, true);
      });

      test('booleans: false, null, "", "0" and zero are false; anything else is true', async () => {
        const falsy: unknown[] = [false, null, '', '0', 0, 0.0, -0];
        const truthy: unknown[] = [true, 'false', '00', 1, 0.5, [], {}, 'no'];
        for (const value of falsy)
          assert.equal((await paramsOf(h, { domain: 'bool.example.se', ipv4: value, ipv6: true })).ipv4, false, JSON.stringify(value));
        for (const value of truthy)
          assert.equal((await paramsOf(h, { domain: 'bool.example.se', ipv4: value, ipv6: false })).ipv4, true, JSON.stringify(value));
      });

      test('integers: numbers in strings are accepted and fractions round to the nearest', async () => {
        const cases: [unknown, number][] = [
          ['7', 7],
          [' 12 ', 12],
          [2.5, 3],
          [2.4, 2],
          ['-3.5', -4],
          ['1e2', 100],
          [-0.2, 0],
        ];
        for (const [given, expected] of cases) {
          const params = await paramsOf(h, { domain: `int${String(expected).replace('-', 'm')}.example.se`, priority: given, queue: 3 });
          assert.equal(params.priority, expected, JSON.stringify(given));
        }
      });

      test('a name server with an empty ip is one without an address', async () => {
        const params = await paramsOf(h, {
          domain: 'noip.example.se',
          nameservers: [
            { ns: 'NS1.noip.example.se.', ip: '' },
            { ns: 'ns2.noip.example.se', ip: '2001:DB8::53' },
          ],
        });
        assert.deepEqual(params.nameservers, [{ ns: 'ns1.noip.example.se' }, { ns: 'ns2.noip.example.se', ip: '2001:db8::53' }]);
      });

      test('strings: numbers are taken as their text', async () => {
        const params = await paramsOf(h, { domain: 'str.example.se', client_id: 42 });
        assert.equal(params.client_id, '42');
      });

      test('reuse: the same test within the reuse time gives the same id; any difference gives a new one', async () => {
        const base = {
          domain: 'reuse.example.se',
          nameservers: [
            { ns: 'ns2.reuse.example.se', ip: '192.0.2.2' },
            { ns: 'ns1.reuse.example.se', ip: '192.0.2.1' },
          ],
        };
        const first = (await h.call('start_domain_test', base)).result;
        const again = (
          await h.call('start_domain_test', {
            ...base,
            domain: 'REUSE.example.se.',
            nameservers: [...base.nameservers].reverse(),
            client_id: 'other',
            priority: 3,
          })
        ).result;
        assert.equal(again, first);
        const noV6 = (await h.call('start_domain_test', { ...base, ipv6: false })).result;
        assert.notEqual(noV6, first);
        const otherProfile = (await h.call('start_domain_test', { ...base, profile: 'secret' })).result;
        assert.notEqual(otherProfile, first);
      });
    });

    describe('test_progress, get_test_params, get_test_results', () => {
      const unknown = '0123456789abcdef';
      for (const name of ['test_progress', 'get_test_params']) {
        table(h, name, [
          { name: 'missing test id', params: {}, error: invalidAt(['/test_id', 'Missing property']) },
          { name: 'upper-case hex', params: { test_id: '0123456789ABCDEF' }, error: invalidAt(['/test_id', /Not a valid test id/]) },
          { name: '15 digits', params: { test_id: '0123456789abcde' }, error: invalidAt(['/test_id', /Not a valid test id/]) },
          {
            name: 'unknown test',
            params: { test_id: unknown },
            error: { code: -32603, message: 'Test not found', data: { test_id: unknown } },
          },
        ]);
      }
      table(h, 'get_test_results', [
        { name: 'missing id', params: { language: 'en' }, error: invalidAt(['/id', 'Missing property']) },
        {
          name: 'bad id, message in Swedish',
          params: { id: 'x', language: 'sv' },
          error: invalidAt(['/id', 'Inte ett giltigt test-id (16 hexadecimala siffror med gemener)']),
        },
        {
          name: 'bad id, message in Slovenian',
          params: { id: 'x', language: 'sl_SI' },
          error: invalidAt(['/id', 'Ni veljaven ID testa (16 šestnajstiških števk z malimi črkami)']),
        },
        { name: 'unknown test', params: { id: unknown }, error: { code: -32603, message: 'Test not found', data: { test_id: unknown } } },
        {
          name: 'test_id is not its name',
          params: { test_id: unknown },
          error: invalidAt(['/test_id', 'Unknown property'], ['/id', 'Missing property']),
        },
      ]);

      test('a new test is at 0, and its results are refused until it is finished', async () => {
        const id = (await h.call('start_domain_test', { domain: 'progress.example.se' })).result;
        assert.equal((await h.call('test_progress', { test_id: id })).result, 0);
        const reply = await h.call('get_test_results', { id });
        assert.equal(reply.error?.code, -32603);
        assert.equal(reply.error?.message, 'Test not finished');
      });
    });

    describe('get_test_chain (ours)', () => {
      const unknown = '0123456789abcdef';
      table(h, 'get_test_chain', [
        { name: 'missing id', params: {}, error: invalidAt(['/id', 'Missing property']) },
        { name: 'bad id', params: { id: 'x' }, error: invalidAt(['/id', /Not a valid test id/]) },
        { name: 'unknown test', params: { id: unknown }, error: { code: -32603, message: 'Test not found', data: { test_id: unknown } } },
      ]);

      test("refused until finished; then the stored chain in grok's shape, or an error when the run left none", async () => {
        await finishAllWaiting(h);
        const { db, dialect } = h.service.context.database;
        const id = (await h.call('start_domain_test', { domain: 'chain.example.se' })).result as string;
        assert.equal((await h.call('get_test_chain', { id })).error?.message, 'Test not finished');
        const claimed = await claimNextTest(db, dialect, 0, claimant);
        assert.equal(claimed?.hashId, id);
        // A chain as the agent stores it: the engine's analysis, here of a zone whose DS names no key.
        const analysis = {
          domain: 'chain.example.se.',
          judgedAt: 1_800_000_000,
          zones: [
            { name: '.', status: 'NOERROR', servers: [], dnskeys: [], queries: [], notes: [] },
            {
              name: 'chain.example.se.',
              parent: '.',
              status: 'NOERROR',
              servers: [{ name: 'ns1.chain.example.se.', glue: ['192.0.2.1'], auth: [] }],
              queries: [],
              notes: [],
              dnskeys: [
                {
                  id: '13/200',
                  flags: 257,
                  protocol: 3,
                  algorithm: 13,
                  key: 'AA==',
                  ttl: 60,
                  keyLength: 512,
                  keyTag: 200,
                  servers: ['192.0.2.1'],
                  signs: [],
                },
              ],
              delegation: {
                status: 'BOGUS',
                errors: [],
                ds: [
                  {
                    id: '13/100/2',
                    algorithm: 13,
                    keyTag: 100,
                    digestType: 2,
                    digest: 'AA==',
                    ttl: 60,
                    status: 'INDETERMINATE_NO_DNSKEY',
                    errors: [],
                    warnings: [],
                    servers: [],
                  },
                ],
              },
            },
          ],
        };
        assert.equal(await finishTest(db, id, [], JSON.stringify(analysis)), true);
        const chain = (await h.call('get_test_chain', { id })).result as Record<
          string,
          { delegation?: { status: string; ds: { id: string; status: string }[] }; dnskey?: { id: string }[] }
        >;
        assert.deepEqual(Object.keys(chain), ['.', 'chain.example.se.']);
        assert.equal(chain['chain.example.se.']?.delegation?.status, 'BOGUS');
        assert.deepEqual(
          chain['chain.example.se.']?.delegation?.ds.map((d) => [d.id, d.status]),
          [['13/100/2', 'INDETERMINATE_NO_DNSKEY']],
        );
        assert.deepEqual(
          chain['chain.example.se.']?.dnskey?.map((k) => k.id),
          ['13/200'],
        );

        const other = (await h.call('start_domain_test', { domain: 'nochain.example.se' })).result as string;
        await finishAllWaiting(h);
        const none = await h.call('get_test_chain', { id: other });
        assert.deepEqual([none.error?.code, none.error?.message], [-32603, 'No chain for this test']);
      });
    });

    describe('get_test_history', () => {
      table(h, 'get_test_history', [
        { name: 'frontend_params missing', params: {}, error: invalidAt(['/frontend_params', 'Missing property']) },
        {
          name: 'domain missing in frontend_params',
          params: { frontend_params: {} },
          error: invalidAt(['/frontend_params/domain', 'Missing property']),
        },
        {
          name: 'bad domain in frontend_params',
          params: { frontend_params: { domain: 'a..b' } },
          error: invalidAt(['/frontend_params/domain', 'Domain name has repeated dots.']),
        },
        {
          name: 'unknown filter',
          params: { filter: 'some', frontend_params: { domain: 'a.se' } },
          error: invalidAt(['/filter', /Must be one of/]),
        },
        {
          name: 'negative limit',
          params: { limit: -1, frontend_params: { domain: 'a.se' } },
          error: invalidAt(['/limit', 'Must be zero or greater']),
        },
        {
          name: 'offset not a number',
          params: { offset: 'first', frontend_params: { domain: 'a.se' } },
          error: invalidAt(['/offset', 'Expected an integer']),
        },
        {
          name: 'no tests gives an empty list',
          params: { frontend_params: { domain: 'never-tested.se' } },
          result: (r) => assert.deepEqual(r, []),
        },
      ]);

      test('finished tests only, newest first, with filters, paging and overall_result', async () => {
        await finishAllWaiting(h);
        const domain = 'history.example.se';
        const ns = [{ ns: 'ns1.history.example.se', ip: '192.0.2.53' }];
        const started: string[] = [];
        const outcomes: [Record<string, unknown>, Level[], string][] = [
          [{}, ['INFO', 'NOTICE'], 'ok'],
          [{ nameservers: ns }, ['INFO', 'WARNING'], 'warning'],
          [{ ipv6: false }, ['WARNING', 'ERROR', 'DEBUG'], 'error'],
          [{ ds_info: [{ keytag: 1, algorithm: 8, digtype: 2, digest: digest40 }] }, ['ERROR', 'CRITICAL'], 'critical'],
        ];
        for (const [extra, levels] of outcomes) {
          const id = (await h.call('start_domain_test', { domain, ...extra })).result as string;
          started.push(id);
          assert.deepEqual(await finishAllWaiting(h, levels), [id]);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await h.call('start_domain_test', { domain, ipv4: false }); // still waiting: not in history
        const all = (await h.call('get_test_history', { frontend_params: { domain: 'History.Example.SE.' } })).result as Record<
          string,
          unknown
        >[];
        assert.deepEqual(
          all.map((t) => t.id),
          [...started].reverse(),
        );
        assert.deepEqual(
          all.map((t) => t.overall_result),
          ['critical', 'error', 'warning', 'ok'],
        );
        assert.deepEqual(
          all.map((t) => t.undelegated),
          [true, false, true, false],
        );
        for (const entry of all) {
          assert.deepEqual(Object.keys(entry).sort(), ['created_at', 'creation_time', 'id', 'overall_result', 'undelegated']);
          assert.match(String(entry.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
          assert.match(String(entry.creation_time), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+$/);
        }
        const delegated = (await h.call('get_test_history', { filter: 'delegated', frontend_params: { domain } })).result as {
          id: string;
        }[];
        assert.deepEqual(
          delegated.map((t) => t.id),
          [started[2], started[0]],
        );
        const undelegated = (await h.call('get_test_history', { filter: 'undelegated', frontend_params: { domain } })).result as {
          id: string;
        }[];
        assert.deepEqual(
          undelegated.map((t) => t.id),
          [started[3], started[1]],
        );
        const page = (await h.call('get_test_history', { offset: '1', limit: 2.2, frontend_params: { domain } })).result as {
          id: string;
        }[];
        assert.deepEqual(
          page.map((t) => t.id),
          [started[2], started[1]],
        );
        assert.deepEqual((await h.call('get_test_history', { limit: 0, frontend_params: { domain } })).result, []);
      });
    });

    describe('add_api_user, add_batch_job, get_batch_job_result', () => {
      table(h, 'add_api_user', [
        { name: 'registers a user', params: { username: 'batch.user@example', api_key: 'key-1_A' }, result: (r) => assert.equal(r, 1) },
        {
          name: 'the same username again',
          params: { username: 'batch.user@example', api_key: 'other' },
          error: { code: -32603, message: 'User already exists', data: { username: 'batch.user@example' } },
        },
        {
          name: 'usernames are case-sensitive',
          params: { username: 'Batch.User@example', api_key: 'key' },
          result: (r) => assert.equal(r, 1),
        },
        { name: 'missing api_key', params: { username: 'u2' }, error: invalidAt(['/api_key', 'Missing property']) },
        { name: 'missing both', params: {}, error: invalidAt(['/username', 'Missing property'], ['/api_key', 'Missing property']) },
        {
          name: 'username with a space',
          params: { username: 'a b', api_key: 'k' },
          error: invalidAt(['/username', 'Not a valid username']),
        },
        {
          name: 'username of 51 characters',
          params: { username: 'u'.repeat(51), api_key: 'k' },
          error: invalidAt(['/username', 'Not a valid username']),
        },
        {
          name: 'api key of 513 characters',
          params: { username: 'u3', api_key: 'k'.repeat(513) },
          error: invalidAt(['/api_key', 'Not a valid API key']),
        },
        { name: 'api key of 512 characters', params: { username: 'u4', api_key: 'k'.repeat(512) }, result: (r) => assert.equal(r, 1) },
        { name: 'api key with a dot', params: { username: 'u5', api_key: 'a.b' }, error: invalidAt(['/api_key', 'Not a valid API key']) },
      ]);

      test('API keys are stored hashed', async () => {
        const rows = await h.service.context.database.db.selectFrom('dh_user').select(['username', 'api_key_hash']).execute();
        const row = rows.find((r) => r.username === 'batch.user@example');
        assert.ok(row);
        assert.ok(!row.api_key_hash.includes('key-1_A'));
        assert.match(row.api_key_hash, /^scrypt\$/);
      });

      table(h, 'add_batch_job', [
        {
          name: 'wrong api key',
          params: { username: 'batch.user@example', api_key: 'nope', domains: ['a.se'] },
          error: { code: -32603, message: 'User not authorized to use batch mode', data: { username: 'batch.user@example' } },
        },
        {
          name: 'unknown user',
          params: { username: 'ghost', api_key: 'key-1_A', domains: ['a.se'] },
          error: { code: -32603, message: 'User not authorized to use batch mode', data: { username: 'ghost' } },
        },
        {
          name: 'empty domains list',
          params: { username: 'batch.user@example', api_key: 'key-1_A', domains: [] },
          error: invalidAt(['/domains', 'Expected at least 1 item(s)']),
        },
        {
          name: 'a bad domain in the list',
          params: { username: 'batch.user@example', api_key: 'key-1_A', domains: ['a.se', 'b..se'] },
          error: invalidAt(['/domains/1', 'Domain name has repeated dots.']),
        },
        {
          name: 'domains missing',
          params: { username: 'batch.user@example', api_key: 'key-1_A' },
          error: invalidAt(['/domains', 'Missing property']),
        },
        {
          name: 'unknown profile in test_params',
          params: { username: 'batch.user@example', api_key: 'key-1_A', domains: ['a.se'], test_params: { profile: 'nosuch' } },
          error: invalidAt(['/test_params/profile', 'Unknown profile']),
        },
        {
          name: 'extra key in test_params',
          params: { username: 'batch.user@example', api_key: 'key-1_A', domains: ['a.se'], test_params: { domain: 'b.se' } },
          error: invalidAt(['/test_params/domain', 'Unknown property']),
        },
        {
          name: 'language is not a test_params key',
          params: { username: 'batch.user@example', api_key: 'key-1_A', domains: ['a.se'], test_params: { language: 'en' } },
          error: invalidAt(['/test_params/language', 'Unknown property']),
        },
      ]);

      table(h, 'get_batch_job_result', [
        {
          name: 'unknown batch',
          params: { batch_id: 999999 },
          error: { code: -32603, message: 'Unknown batch', data: { batch_id: 999999 } },
        },
        { name: 'zero', params: { batch_id: 0 }, error: invalidAt(['/batch_id', 'Must be a positive integer']) },
        { name: 'not a number', params: { batch_id: 'one' }, error: invalidAt(['/batch_id', 'Expected an integer']) },
        { name: 'missing', params: {}, error: invalidAt(['/batch_id', 'Missing property']) },
      ]);

      test('a batch runs its tests at priority 5, one unfinished batch per user, and reports its progress', async () => {
        await finishAllWaiting(h);
        const credentials = { username: 'batch.user@example', api_key: 'key-1_A' };
        const created = await h.call('add_batch_job', {
          ...credentials,
          domains: ['One.example.se', 'two.example.se.', 'tr\u00e9s.example.se'],
          test_params: { ipv6: 0, client_id: 'batch-script' },
        });
        assert.equal(created.error, undefined, JSON.stringify(created.error));
        const batchId = created.result as number;
        assert.ok(Number.isInteger(batchId) && batchId > 0);

        const refused = await h.call('add_batch_job', { ...credentials, domains: ['x.se'] });
        assert.equal(refused.error?.code, -32603);
        assert.equal(refused.error?.message, 'Batch job still running');
        const data = refused.error?.data as Record<string, unknown>;
        assert.equal(data.batch_id, batchId);
        assert.match(String(data.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        assert.match(String(data.creation_time), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+$/);

        // Another user is not held up by this one's batch.
        assert.equal(
          (
            await h.call('add_batch_job', {
              username: 'Batch.User@example',
              api_key: 'key',
              domains: ['other.se'],
              test_params: { priority: 7, queue: 1 },
            })
          ).error,
          undefined,
        );

        const status = (await h.call('get_batch_job_result', { batch_id: String(batchId) })).result;
        assert.deepEqual(status, { nb_finished: 0, finished_test_ids: [], nb_running: 3 });

        const { db, dialect } = h.service.context.database;
        const claimed = await claimNextTest(db, dialect, 0, claimant);
        assert.ok(claimed);
        assert.equal(claimed.batchId, batchId);
        assert.deepEqual(claimed.params, {
          domain: 'one.example.se',
          ipv4: true,
          ipv6: false,
          nameservers: [],
          ds_info: [],
          profile: 'default',
          priority: 5,
          queue: 0,
          client_id: 'batch-script',
        });
        assert.deepEqual((await h.call('get_test_params', { test_id: claimed.hashId })).result, claimed.params);
        await finishTest(db, claimed.hashId, [
          { module: 'BASIC', testcase: 'Basic01', tag: 'B01_PARENT_FOUND', level: 'INFO', args: {}, timestamp: 0 },
        ]);
        assert.deepEqual((await h.call('get_batch_job_result', { batch_id: batchId })).result, {
          nb_finished: 1,
          finished_test_ids: [claimed.hashId],
          nb_running: 2,
        });

        // Batch tests are never reused by start_domain_test.
        const single = (await h.call('start_domain_test', { domain: 'two.example.se', ipv6: false })).result;
        const batchTests = await db.selectFrom('dh_test').select('hash_id').where('batch_id', '=', batchId).execute();
        assert.ok(!batchTests.some((t) => t.hash_id === single));

        const rest = await finishAllWaiting(h);
        assert.ok(rest.length >= 2);
        const done = (await h.call('get_batch_job_result', { batch_id: batchId })).result as { nb_finished: number; nb_running: number };
        assert.equal(done.nb_finished, 3);
        assert.equal(done.nb_running, 0);
        const next = await h.call('add_batch_job', { ...credentials, domains: ['x.se'] });
        assert.equal(next.error, undefined, 'a finished batch no longer blocks a new one');
      });
    });
  });
}
