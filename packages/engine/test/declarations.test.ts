// Each test case declares the tags it may emit; the declarations must agree with the default profile
// and the catalogue, so a mistyped tag fails here instead of turning silently into DEBUG.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messageTemplate } from '../src/catalogue/catalogue.ts';
import { modules, referenceModules } from '../src/run/registry.ts';
import { defaultProfile, extendedProfile, isOwnTag, levelOf } from '../src/profile/profile.ts';

// Tags the reference engine emits (its metadata lists all but SOA_MNAME) that its default profile
// leaves out, so they are DEBUG there and here. ZONE's IP family messages are new in 9.0.
const emittedButNotInProfile = new Set([
  'BASIC:NO_A_RECORDS',
  'SYNTAX:RNAME_MAIL_DOMAIN_LOCALHOST',
  'SYNTAX:RNAME_MAIL_ILLEGAL_CNAME',
  'SYNTAX:IPV4_DISABLED',
  'SYNTAX:IPV6_DISABLED',
  'ZONE:IPV4_DISABLED',
  'ZONE:IPV6_DISABLED',
  'NAMESERVER:Z_FLAGS_NOTCLEAR',
  'CONSISTENCY:SOA_MNAME',
]);

const declared = modules.flatMap((module) => module.testCases.map((testCase) => ({ module: module.name, testCase })));

test('test case ids are unique and every `after` names a test case of the engine', () => {
  const ids = declared.map((d) => d.testCase.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const { testCase } of declared) {
    for (const dependency of testCase.after ?? []) assert.ok(ids.includes(dependency), `${testCase.id} waits for unknown ${dependency}`);
    assert.ok(!(testCase.after ?? []).includes(testCase.id), `${testCase.id} waits for itself`);
  }
});

test('every declared tag is known to the default profile (the extended one for modules beyond the reference), or is one of our own with a level', () => {
  const levels = extendedProfile().test_levels;
  const unknown = declared.flatMap(({ module, testCase }) =>
    testCase.tags
      .filter((tag) => levels[module]?.[tag] === undefined && !emittedButNotInProfile.has(`${module}:${tag}`) && !isOwnTag(module, tag))
      .map((tag) => `${testCase.id}: ${module}:${tag}`),
  );
  assert.deepEqual(unknown, []);
});

test('every declared tag a user can see has English text', () => {
  const profile = extendedProfile();
  const missing = declared.flatMap(({ module, testCase }) =>
    testCase.tags
      .filter((tag) => !levelOf(profile, module, tag).startsWith('DEBUG') && messageTemplate(module, tag, 'en') === undefined)
      .map((tag) => `${module}:${tag}`),
  );
  assert.deepEqual(missing, []);
});

test("the default profile runs only the reference's test cases; extended adds those beyond it", () => {
  const beyond = modules.filter((m) => !referenceModules.includes(m.name)).flatMap((m) => m.testCases.map((tc) => tc.id.toLowerCase()));
  assert.ok(beyond.length > 0);
  assert.deepEqual(
    defaultProfile().test_cases.filter((id) => beyond.includes(id)),
    [],
  );
  assert.deepEqual(
    extendedProfile().test_cases.filter((id) => beyond.includes(id)),
    beyond,
  );
  assert.deepEqual(
    extendedProfile().test_cases.filter((id) => !beyond.includes(id)),
    defaultProfile().test_cases,
  );
});
