// Unit test of how the extension finds the server (src/server.ts, bundled
// on the fly with esbuild): the `slang.server.path` setting (absolute, or a
// name looked up on PATH), else the binary bundled as
// server/<platform>-<arch>/slang-analyzer, else slang-analyzer on PATH; and
// the message shown when there is none. Run: node test/server.test.mjs
import { buildSync } from 'esbuild';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const here = path.dirname(new URL(import.meta.url).pathname);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'slang-vscode-server-'));
const out = path.join(tmp, 'server.cjs');
buildSync({ entryPoints: [path.join(here, '../src/server.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'error' });
const { resolveServer, ServerNotFound, bundledPath } = createRequire(import.meta.url)(out);

const exe = (p) => {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, '#!/bin/sh\n');
  fs.chmodSync(p, 0o755);
  return p;
};
const plat = process.platform;
const arch = process.arch;
const extDir = path.join(tmp, 'ext');
const binDir = path.join(tmp, 'bin');
const savedPath = process.env.PATH;
let checks = 0;
try {
  // Nothing anywhere: ServerNotFound, saying what to do.
  process.env.PATH = path.join(tmp, 'empty');
  assert.throws(() => resolveServer('', extDir, plat, arch), (e) => {
    assert.ok(e instanceof ServerNotFound);
    assert.match(e.message, /slang\.server\.path/);
    assert.match(e.message, /PATH/);
    return true;
  });
  checks++;
  // On PATH.
  const onPath = exe(path.join(binDir, 'slang-analyzer'));
  process.env.PATH = binDir;
  assert.equal(resolveServer('', extDir, plat, arch), onPath);
  checks++;
  // A bundled binary wins over PATH.
  const bundled = exe(bundledPath(extDir, plat, arch));
  assert.equal(bundled, path.join(extDir, 'server', `${plat}-${arch}`, 'slang-analyzer'));
  assert.equal(resolveServer('', extDir, plat, arch), bundled);
  checks++;
  // The setting wins over both: an absolute path, or a name on PATH.
  const configured = exe(path.join(tmp, 'custom', 'my-analyzer'));
  assert.equal(resolveServer(configured, extDir, plat, arch), configured);
  exe(path.join(binDir, 'other-analyzer'));
  assert.equal(resolveServer('other-analyzer', extDir, plat, arch), path.join(binDir, 'other-analyzer'));
  checks++;
  // A setting naming nothing is an error, not a silent fallback.
  assert.throws(() => resolveServer(path.join(tmp, 'missing'), extDir, plat, arch), ServerNotFound);
  assert.throws(() => resolveServer('no-such-analyzer', extDir, plat, arch), /not on PATH/);
  // A file that is not executable is not a server.
  const plain = path.join(tmp, 'plain');
  fs.writeFileSync(plain, '');
  fs.chmodSync(plain, 0o644);
  assert.throws(() => resolveServer(plain, extDir, plat, arch), /not an executable/);
  checks++;
} finally {
  process.env.PATH = savedPath;
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(`server resolution: ${checks} checks passed`);
