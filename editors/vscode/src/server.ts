// Finding the slang-analyzer binary: the `slang.server.path` setting, then
// the binary bundled in the extension (`server/<platform>-<arch>/`), then
// `PATH`.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export class ServerNotFound extends Error {}

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      fs.accessSync(p, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

function expandHome(p: string): string {
  if (p === '~' || p.startsWith('~/')) {
    return path.join(os.homedir(), p.slice(1));
  }
  return p;
}

/** The file name of the binary on `platform`. */
export function binaryName(platform: NodeJS.Platform): string {
  return platform === 'win32' ? 'slang-analyzer.exe' : 'slang-analyzer';
}

/** Where a bundled binary sits inside the extension. */
export function bundledPath(extensionPath: string, platform: NodeJS.Platform, arch: string): string {
  return path.join(extensionPath, 'server', `${platform}-${arch}`, binaryName(platform));
}

/** Looks `name` up in the `PATH` of `env`. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env.PATH ?? env.Path ?? '').split(path.delimiter).filter((d) => d.length > 0);
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE').split(';').concat(['']) : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const p = path.join(dir, name.endsWith(ext) ? name : name + ext);
      if (isExecutable(p)) {
        return p;
      }
    }
  }
  return undefined;
}

/** The server command: the configured path, the bundled binary, or the one
 * on `PATH`. Throws [`ServerNotFound`] with what to do when there is none. */
export function resolveServer(
  configured: string,
  extensionPath: string,
  platform: NodeJS.Platform,
  arch: string,
): string {
  const setting = configured.trim();
  if (setting.length > 0) {
    const p = expandHome(setting);
    if (path.isAbsolute(p) || p.includes('/') || p.includes('\\')) {
      if (isExecutable(p)) {
        return p;
      }
      throw new ServerNotFound(`slang.server.path is "${setting}", which is not an executable file.`);
    }
    const found = onPath(p);
    if (found) {
      return found;
    }
    throw new ServerNotFound(`slang.server.path is "${setting}", which is not on PATH.`);
  }
  const bundled = bundledPath(extensionPath, platform, arch);
  if (isExecutable(bundled)) {
    return bundled;
  }
  const found = onPath(binaryName(platform));
  if (found) {
    return found;
  }
  throw new ServerNotFound(
    'cannot find the slang-analyzer binary: set slang.server.path, put slang-analyzer on PATH ' +
      '(cargo install --path server), or install a .vsix that bundles it for ' +
      `${platform}-${arch}.`,
  );
}
