// The dnscheck bundle (scripts/bundle-cli.ts) is a start-up cache. It counts only while no file it
// was made from has changed since its build started; otherwise (or without one) the sources run.
// Beside it, V8's code cache of every function a zone test compiled: V8 compiles a function the first
// time it is called, and a run calls hundreds, about 20 ms that the cache saves (Node's own compile
// cache is taken before the code runs, so it holds little more than the top level).
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** The bundle's entry in `dir` when it is fresh, else undefined. */
export function freshBundle(dir) {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    const stale = manifest.inputs.some((input) => statSync(join(dir, input)).mtimeMs > manifest.started);
    return stale ? undefined : join(dir, manifest.entry);
  } catch {
    return undefined;
  }
}

/** Runs the bundle (CommonJS) with its code cache when it has a usable one. */
export function loadBundle(path) {
  const cachePath = `${path}.code-cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cachePath);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(path, 'utf8')}\n})`, {
    filename: path,
    cachedData,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(path), module, path, dirname(path));
  return {
    main: module.exports.main,
    /** After a zone test: keeps what it compiled, unless a usable cache is there already. */
    keepCompiledCode() {
      if (cachedData !== undefined && !script.cachedDataRejected) return;
      try {
        const temporary = `${cachePath}.${process.pid}`;
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, cachePath);
      } catch {
        // A read-only install runs without the cache.
      }
    },
  };
}
