// End-to-end test of the extension in a real VS Code: packages the .vsix,
// installs it into code-server, serves a workspace with a Slang file and
// drives it with headless Chromium (playwright-core):
//   1. the status bar shows the server running;
//   2. the diagnostic of a deliberate error appears (squiggle and Problems);
//   3. hovering a [Differentiable] function shows its derivative signatures;
//   4. "Slang: Show Backward Derivative" opens a read-only document with the
//      generated backward derivative (s_bwd_prop_…);
//   5. "Slang: Show Reverse-Mode Passes (IR)" opens the IR after each pass;
//   6. "Slang: Show Compiled Output…" with HLSL opens the target code;
// and keeps a screenshot (target/editor-tests/vscode.png).
//
// Run test/setup.sh once first. Environment:
//   SLANG_ANALYZER   the server binary (default: target/debug/slang-analyzer)
//   CODE_SERVER      code-server (default: target/editor-tools/code-server/…)
//   CHROMIUM         the browser (default: /usr/bin/chromium)
//   E2E_SCREENSHOT   where to save the screenshot
//   E2E_KEEP=1       keep the temporary folder (logs) after a run
// Exit status 0 on success, 1 with a message naming the failed step.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EXT = path.resolve(HERE, '..');
const ROOT = path.resolve(EXT, '..', '..');
const TOTAL_TIMEOUT_MS = 300_000;
const STEP_TIMEOUT_MS = 60_000;

const server = path.resolve(process.env.SLANG_ANALYZER ?? path.join(ROOT, 'target/debug/slang-analyzer'));
const codeServer = process.env.CODE_SERVER ?? path.join(ROOT, 'target/editor-tools/code-server/node_modules/.bin/code-server');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const screenshot = path.resolve(process.env.E2E_SCREENSHOT ?? path.join(ROOT, 'target/editor-tests/vscode.png'));

const started = Date.now();
const log = (msg) => console.log(`e2e: [${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);

let tmp;
let codeServerProc;
let browser;
let page;
let cleaning = false;

async function cleanup() {
  if (cleaning) return;
  cleaning = true;
  if (browser) {
    await Promise.race([browser.close().catch(() => {}), sleep(5000)]);
  }
  if (codeServerProc && codeServerProc.exitCode === null) {
    // code-server is started in its own process group: end it and the
    // language servers and helpers it started.
    try {
      process.kill(-codeServerProc.pid, 'SIGTERM');
    } catch {}
    await Promise.race([new Promise((r) => codeServerProc.once('exit', r)), sleep(5000)]);
    try {
      process.kill(-codeServerProc.pid, 'SIGKILL');
    } catch {}
  }
  if (tmp && !process.env.E2E_KEEP) {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function fail(msg) {
  console.error(`e2e: FAILED: ${msg}`);
  if (page) {
    const shot = screenshot.replace(/\.png$/, '-failure.png');
    fs.mkdirSync(path.dirname(shot), { recursive: true });
    await Promise.race([page.screenshot({ path: shot }).then(() => console.error(`e2e: screenshot of the failure: ${shot}`), () => {}), sleep(5000)]);
  }
  if (tmp) {
    const logFile = path.join(tmp, 'code-server.log');
    if (fs.existsSync(logFile)) {
      const text = fs.readFileSync(logFile, 'utf8');
      console.error(`e2e: last lines of code-server's log:\n${text.split('\n').slice(-30).join('\n')}`);
    }
    const exthost = findFiles(path.join(tmp, 'user-data', 'logs'), /Slang\.log$|exthost\.log$/);
    for (const f of exthost) {
      console.error(`e2e: ${path.relative(tmp, f)}:\n${fs.readFileSync(f, 'utf8').split('\n').slice(-25).join('\n')}`);
    }
  }
  await cleanup();
  process.exit(1);
}

function findFiles(dir, re) {
  const out = [];
  const walk = (d) => {
    let entries = [];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (re.test(e.name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` with a deadline; fails the test naming `what` when it passes. */
async function step(what, fn, timeout = STEP_TIMEOUT_MS) {
  log(what);
  let timer;
  try {
    return await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeout / 1000}s`)), timeout);
      }),
    ]);
  } catch (e) {
    await fail(`${what}: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    clearTimeout(timer);
  }
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 180_000, ...opts });
  if (r.error || r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')}: ${r.error ?? `exit ${r.status}`}\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  }
  return r.stdout;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// The fixture: the example module, and a file with a deliberate error (the
// code generator makes nothing for a file with errors, so it is another one).
const ERROR_MESSAGE = 'cannot find `undefinedThing` in this scope';
function writeFixture(dir) {
  const text = fs.readFileSync(path.join(ROOT, 'tests/examples/differentiable_shading.slang'), 'utf8');
  const broken = `// A deliberate error for the editor test.
float brokenOnPurpose(float x)
{
    return x + undefinedThing;
}
`;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'shading.slang'), text);
  fs.writeFileSync(path.join(dir, 'broken.slang'), broken);
  const lines = text.split('\n');
  const line = lines.findIndex((l) => /^float3 shade\(/.test(l));
  if (line < 0) throw new Error('the example has no `float3 shade(` line any more');
  const errorLine = broken.split('\n').findIndex((l) => l.includes('undefinedThing')) + 1;
  return { shadeLine: line + 1, shadeColumn: lines[line].indexOf('shade') + 1, errorLine };
}

async function main() {
  const globalTimer = setTimeout(() => {
    void fail(`the whole test took more than ${TOTAL_TIMEOUT_MS / 1000}s`);
  }, TOTAL_TIMEOUT_MS);
  globalTimer.unref();
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => void fail(`interrupted (${sig})`));
  }

  for (const [what, p] of [
    ['the server binary (cargo build -p slang-analyzer, or set SLANG_ANALYZER)', server],
    ['code-server (run editors/vscode/test/setup.sh)', codeServer],
    ['chromium (run editors/vscode/test/setup.sh)', chromiumPath],
    ['the npm dependencies (run editors/vscode/test/setup.sh)', path.join(EXT, 'node_modules/playwright-core')],
  ]) {
    if (!fs.existsSync(p)) await fail(`missing ${what}: ${p}`);
  }
  const { chromium } = await import('playwright-core');
  fs.rmSync(screenshot.replace(/\.png$/, '-failure.png'), { force: true });

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'slang-vscode-e2e-'));
  const vsix = path.join(tmp, 'slang-analyzer.vsix');
  const extDir = path.join(tmp, 'extensions');
  const userData = path.join(tmp, 'user-data');
  const workspace = path.join(tmp, 'workspace');

  await step('build and package the extension (vsce package)', async () => {
    run(process.execPath, [path.join(EXT, 'node_modules/@vscode/vsce/vsce'), 'package', '--no-dependencies', '--allow-missing-repository', '-o', vsix], {
      cwd: EXT,
    });
    if (!fs.existsSync(vsix)) throw new Error('vsce made no .vsix');
  }, 180_000);

  await step('install the .vsix into code-server', async () => {
    const out = run(codeServer, ['--install-extension', vsix, '--extensions-dir', extDir, '--user-data-dir', userData], {
      env: { ...process.env, HOME: tmp },
    });
    if (!/slang-analyzer/.test(fs.readdirSync(extDir).join(' '))) {
      throw new Error(`no slang-analyzer extension in ${extDir}:\n${out}`);
    }
  }, 120_000);

  const fixture = writeFixture(workspace);
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'slang.server.path': server,
        'slang.trace.server': 'messages',
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'extensions.ignoreRecommendations': true,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'chat.commandCenter.enabled': false,
        'editor.hover.delay': 200,
        'editor.minimap.enabled': false,
        'window.commandCenter': false,
        'git.enabled': false,
      },
      null,
      2,
    ),
  );

  const port = await freePort();
  await step(`start code-server on 127.0.0.1:${port}`, async () => {
    const logFd = fs.openSync(path.join(tmp, 'code-server.log'), 'a');
    codeServerProc = spawn(
      codeServer,
      [
        '--auth', 'none',
        '--bind-addr', `127.0.0.1:${port}`,
        '--extensions-dir', extDir,
        '--user-data-dir', userData,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        workspace,
      ],
      { detached: true, stdio: ['ignore', logFd, logFd], env: { ...process.env, HOME: tmp } },
    );
    for (;;) {
      if (codeServerProc.exitCode !== null) throw new Error(`code-server exited with ${codeServerProc.exitCode}`);
      try {
        const r = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (r.ok) return;
      } catch {}
      await sleep(250);
    }
  });

  await step('open the workspace in headless Chromium', async () => {
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      timeout: 30_000,
    });
    const context = await browser.newContext({ viewport: { width: 1500, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible' });
    await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ state: 'visible' });
  });

  // Runs a command through the command palette.
  const command = async (title) => {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    await row.waitFor({ state: 'visible' });
    await input.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  };

  // Moves the cursor of the active editor with Go to Line.
  const gotoLine = async (line, column) => {
    await page.keyboard.press('Control+G');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`:${line}:${column}`);
    await input.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  };

  const open = async (name) => {
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(name);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
    await input.press('Enter');
    await page.locator('.tab.active', { hasText: name }).waitFor();
    await page.locator('.editor-group-container.active .editor-instance .view-lines').first().waitFor();
  };

  await step('open broken.slang (Quick Open)', async () => {
    await page.locator('.monaco-workbench').click({ position: { x: 700, y: 400 } }).catch(() => {});
    await open('broken.slang');
  });

  await step('the language mode is Slang', async () => {
    await page.locator('.statusbar-item', { hasText: /^Slang$/ }).first().waitFor();
  });

  await step('the status bar shows the server running', async () => {
    await page.locator('.statusbar-item[aria-label="Slang language server running"]').first().waitFor();
  });

  await step(`the Problems panel lists "${ERROR_MESSAGE}" once`, async () => {
    await command('View: Focus Problems');
    const rows = page.locator('.markers-panel .monaco-list-row', { hasText: ERROR_MESSAGE });
    await rows.first().waitFor();
    await sleep(1500); // a duplicate (pushed and pulled) would show by now
    const n = await rows.count();
    if (n !== 1) throw new Error(`${n} rows with the message (expected 1)`);
    const text = await rows.first().innerText();
    log(`Problems: ${text.replace(/\s+/g, ' ')}`);
  });

  await step(`a squiggle marks the error (line ${fixture.errorLine})`, async () => {
    await gotoLine(fixture.errorLine, 16);
    await page.locator('.editor-group-container.active .squiggly-error').first().waitFor({ state: 'attached' });
  });

  await step('open shading.slang (Quick Open)', () => open('shading.slang'));

  await step(`put the cursor on \`shade\` (line ${fixture.shadeLine})`, async () => {
    await gotoLine(fixture.shadeLine, fixture.shadeColumn + 2);
  });

  const expectedHover = ['fwd_diff(shade)', 'bwd_diff(shade)', 'DifferentialPair<Material>'];
  await step('hovering `shade` shows its derivative signatures', async () => {
    // Hover the name with the mouse: the token of `shade` on its line.
    const line = page.locator('.editor-instance .view-line', { hasText: 'float3 shade(Material m' }).first();
    const token = line.locator('span > span', { hasText: /^shade$/ }).first();
    await token.hover();
    const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'fwd_diff(shade)' }).first();
    try {
      await hover.waitFor({ state: 'visible', timeout: 15_000 });
    } catch {
      // Some headless runs drop the first mouse move; the keyboard way shows
      // the same widget.
      log('no hover from the mouse yet: moving again, then Show Hover');
      await page.mouse.move(10, 10);
      await token.hover();
      await hover.waitFor({ state: 'visible', timeout: 5_000 }).catch(async () => {
        await command('Show or Focus Hover');
        await hover.waitFor({ state: 'visible', timeout: 15_000 });
      });
    }
    const text = await hover.innerText();
    for (const want of expectedHover) {
      if (!text.includes(want)) throw new Error(`the hover lacks "${want}":\n${text}`);
    }
    log(`hover: ${text.split('\n').filter((l) => /_diff\(shade\)/.test(l)).join(' | ')}`);
    await page.keyboard.press('Escape');
  });

  await step('a checkpoint code lens "saves … B/thread" shows (bwd_diff(loss))', async () => {
    const lens = page
      .locator('.editor-group-container.active .codelens-decoration', { hasText: /saves \d+ B\/thread/ })
      .first();
    await lens.waitFor({ state: 'attached', timeout: 30_000 });
    log(`code lens: ${(await lens.innerText()).replace(/\s+/g, ' ')}`);
  });

  await step('"Slang: Show Backward Derivative" opens the generated code', async () => {
    // The cursor is still in `shade`.
    await gotoLine(fixture.shadeLine + 2, 5);
    await command('Slang: Show Backward Derivative');
    const tab = page.locator('.tab', { hasText: 'bwd_diff(shade).slang' }).first();
    await tab.waitFor({ state: 'visible' });
    const editor = page.locator('.editor-group-container.active .editor-instance').first();
    await editor.locator('.view-line', { hasText: 'bwd_diff(shade)' }).first().waitFor();
    // The generated backward-propagation function may be below the fold:
    // search the document for it.
    await editor.locator('.view-lines').click();
    await page.keyboard.press('Control+F');
    const find = page.locator('.editor-group-container.active .find-widget.visible');
    await find.waitFor();
    await page.keyboard.type('s_bwd_prop_shade');
    const count = find.locator('.matchesCount');
    await page.waitForFunction(
      (el) => el && /\d+ of \d+/.test(el.textContent ?? ''),
      await count.elementHandle(),
      { timeout: 10_000 },
    ).catch(async () => {
      throw new Error(`no s_bwd_prop_shade in the generated document (find: "${await count.innerText().catch(() => '?')}")`);
    });
    log(`find s_bwd_prop_shade: ${await count.innerText()}`);
    await page.keyboard.press('Escape');
    // A generated document is read-only: typing into it is refused.
    await editor.locator('.view-lines').click();
    await page.keyboard.type('x');
    const refusal = page.locator('.monaco-editor-overlaymessage', { hasText: /read-?only/i }).first();
    await refusal.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => {
      throw new Error('typing into the generated document was not refused as read-only');
    });
    log(`typing into it: "${(await refusal.innerText()).trim()}"`);
  });

  await step('"Slang: Show Reverse-Mode Passes (IR)" opens the IR after each pass', async () => {
    await page.locator('.tab', { hasText: 'shading.slang' }).first().click();
    await gotoLine(fixture.shadeLine + 2, 5);
    await command('Slang: Show Reverse-Mode Passes (IR)');
    await page.locator('.tab', { hasText: 'passes(shade).slang' }).first().waitFor({ state: 'visible' });
    const editor = page.locator('.editor-group-container.active .editor-instance').first();
    await editor.locator('.view-line', { hasText: '// ---- after primal ----' }).first().waitFor();
    log('passes(shade).slang opened at the primal IR');
  });

  await step('"Slang: Show Compiled Output…" with HLSL opens the target code', async () => {
    await page.locator('.tab', { hasText: 'shading.slang' }).first().click();
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill('>Slang: Show Compiled Output');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Show Compiled Output' }).first().waitFor();
    await input.press('Enter');
    // The target pick (the file has one entry point, so no second pick).
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'compile target' }).waitFor();
    await input.fill('hlsl');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'hlsl' }).first().waitFor();
    await input.press('Enter');
    await page.locator('.tab', { hasText: 'fitRoughness.hlsl' }).first().waitFor({ state: 'visible' });
    const editor = page.locator('.editor-group-container.active .editor-instance').first();
    // HLSL of the example: the synthesized Differential of `Material`.
    await editor.locator('.view-line', { hasText: 'struct Material_Differential' }).first().waitFor();
    log('fitRoughness.hlsl opened with struct Material_Differential');
    // Back to the backward derivative for the screenshot.
    await page.locator('.tab', { hasText: 'bwd_diff(shade).slang' }).first().click();
  });

  await step(`save a screenshot to ${screenshot}`, async () => {
    // The source with the hover of `shade`, next to its backward derivative.
    await page.locator('.tab', { hasText: 'shading.slang' }).first().click();
    await gotoLine(fixture.shadeLine, fixture.shadeColumn);
    const line = page.locator('.editor-instance .view-line', { hasText: 'float3 shade(Material m' }).first();
    await line.locator('span > span', { hasText: /^shade$/ }).first().hover();
    await page
      .locator('.monaco-hover:not(.hidden)', { hasText: 'fwd_diff(shade)' })
      .first()
      .waitFor({ state: 'visible', timeout: 10_000 })
      .catch(() => log('(no hover in the screenshot)'));
    fs.mkdirSync(path.dirname(screenshot), { recursive: true });
    await page.screenshot({ path: screenshot });
  });

  clearTimeout(globalTimer);
  await cleanup();
  log(`screenshot: ${screenshot}`);
  console.log('e2e: all checks passed (server running, diagnostics, hover, backward derivative, compiled output)');
}

main().catch((e) => fail(e instanceof Error ? e.stack ?? e.message : String(e)));
