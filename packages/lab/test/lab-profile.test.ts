// The lab profile in the repository is the engine's default profile with the lab's changes and nothing
// else: a profile's test_levels replace the default's whole, so a stale copy would quietly undo a
// level the engine's default changed later.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { labLevels, labProfilePath } from '../src/demo/lab-profile.ts';

const defaultProfile = resolve(import.meta.dirname, '../../engine/src/profile/default-profile.json');

test("lab-profile.json is the default profile's test levels with the documentation addresses at INFO", () => {
  const defaults = JSON.parse(readFileSync(defaultProfile, 'utf8')) as { test_levels: Record<string, Record<string, string>> };
  const expected = structuredClone(defaults.test_levels);
  for (const [module, tag, level] of labLevels) {
    assert.ok(expected[module]?.[tag] !== undefined, `${module} ${tag} is a tag of the default profile`);
    expected[module] = { ...expected[module], [tag]: level };
  }
  assert.deepEqual(JSON.parse(readFileSync(labProfilePath, 'utf8')), { test_levels: expected });
});
