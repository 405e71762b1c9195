// The VS Code client of slang-analyzer: starts the language server, shows
// its state in the status bar, and adds the commands that show generated
// code (derivatives, target code) as read-only virtual documents.

import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  RequestType,
  ServerOptions,
  State,
  TextDocumentIdentifier,
  Position,
} from 'vscode-languageclient/node';
import { resolveServer, ServerNotFound } from './server';
import { derivativeUri, GeneratedDocuments, SCHEME } from './generated';

/** A document the server generated: `slang-analyzer/derivative` and
 * `slang-analyzer/compile` answer with one. */
interface GeneratedDocument {
  uri: string;
  languageId: string;
  text: string;
}

interface DerivativeParams {
  textDocument: TextDocumentIdentifier;
  position: Position;
  mode?: 'fwd' | 'bwd' | 'both' | 'passes';
}

interface CompileParams {
  textDocument: TextDocumentIdentifier;
  target: string;
  entryPoint?: string;
}

const DerivativeRequest = new RequestType<DerivativeParams, GeneratedDocument, void>('slang-analyzer/derivative');
const CompileRequest = new RequestType<CompileParams, GeneratedDocument, void>('slang-analyzer/compile');

export const TARGETS = ['wgsl', 'spirv', 'glsl', 'hlsl', 'msl'] as const;

type ServerState = 'starting' | 'running' | 'stopped' | 'error';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let traceOutput: vscode.OutputChannel;
let status: vscode.StatusBarItem;
let documents: GeneratedDocuments;
let extensionPath = '';

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionPath = context.extensionPath;
  output = vscode.window.createOutputChannel('Slang');
  traceOutput = vscode.window.createOutputChannel('Slang Trace');
  status = vscode.window.createStatusBarItem('slang.status', vscode.StatusBarAlignment.Left, 0);
  status.name = 'Slang Language Server';
  status.command = 'slang.statusMenu';
  documents = new GeneratedDocuments();
  context.subscriptions.push(
    output,
    traceOutput,
    status,
    documents,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, documents),
    vscode.commands.registerCommand('slang.showForwardDerivative', () => showDerivative('fwd')),
    // (Also the server's checkpoint code lenses: document URI and position.)
    vscode.commands.registerCommand('slang.showBackwardDerivative', (uri?: unknown, position?: unknown) =>
      showDerivative('bwd', uri, position),
    ),
    vscode.commands.registerCommand('slang.showReverseModePasses', () => showDerivative('passes')),
    // From the context menu the first argument is the document's URI; from
    // a key binding or another extension, the target and entry point.
    vscode.commands.registerCommand('slang.showCompiledOutput', (target?: unknown, entryPoint?: unknown) =>
      showCompiledOutput(
        typeof target === 'string' ? target : undefined,
        typeof entryPoint === 'string' ? entryPoint : undefined,
      ),
    ),
    vscode.commands.registerCommand('slang.restartServer', () => restart()),
    vscode.commands.registerCommand('slang.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('slang.statusMenu', () => statusMenu()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      // The server follows `slang.*` through didChangeConfiguration; how it
      // is started needs a restart.
      if (e.affectsConfiguration('slang.server')) {
        void vscode.window
          .showInformationMessage('Slang: the server settings changed.', 'Restart Server')
          .then((choice) => {
            if (choice) {
              void restart();
            }
          });
      }
    }),
  );
  status.show();
  await start();
}

export async function deactivate(): Promise<void> {
  if (client) {
    const c = client;
    client = undefined;
    await c.stop().catch(() => undefined);
  }
}

function setStatus(state: ServerState, detail?: string): void {
  const icons: Record<ServerState, string> = {
    starting: '$(sync~spin)',
    running: '$(check)',
    stopped: '$(circle-slash)',
    error: '$(error)',
  };
  status.text = `${icons[state]} Slang`;
  const tip = new vscode.MarkdownString(`**slang-analyzer**: ${state}${detail ? `\n\n${detail}` : ''}\n\nClick to restart the server or show its output.`);
  status.tooltip = tip;
  status.backgroundColor =
    state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  status.accessibilityInformation = { label: `Slang language server ${state}` };
}

/** The `slang` settings the server reads, for the initialization options. */
function serverSettings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration('slang');
  return {
    predefinedMacros: c.get<string[]>('predefinedMacros', []),
    additionalSearchPaths: c.get<string[]>('additionalSearchPaths', []),
    searchInAllWorkspaceDirectories: c.get<boolean>('searchInAllWorkspaceDirectories', true),
    inlayHints: {
      deducedTypes: c.get<boolean>('inlayHints.deducedTypes', true),
      parameterNames: c.get<boolean>('inlayHints.parameterNames', true),
      derivativeSignatures: c.get<boolean>('inlayHints.derivativeSignatures', true),
    },
    workspaceFlavor: c.get<string>('workspaceFlavor', 'standard'),
    predefinedLanguageVersion: c.get<string>('predefinedLanguageVersion', ''),
    pythonPath: c.get<string>('pythonPath', ''),
  };
}

async function start(): Promise<void> {
  setStatus('starting');
  const config = vscode.workspace.getConfiguration('slang');
  let command: string;
  try {
    command = resolveServer(config.get<string>('server.path', ''), extensionPath, process.platform, process.arch);
  } catch (e) {
    const message = e instanceof ServerNotFound ? e.message : String(e);
    output.appendLine(`[error] ${message}`);
    setStatus('error', message);
    void vscode.window.showErrorMessage(`Slang: ${message}`, 'Open Settings', 'Show Output').then((choice) => {
      if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'slang.server.path');
      } else if (choice === 'Show Output') {
        output.show(true);
      }
    });
    return;
  }
  output.appendLine(`[info] starting ${command}`);
  const args = ['lsp', ...config.get<string[]>('server.extraArgs', [])];
  const env = { ...process.env, ...config.get<Record<string, string>>('server.extraEnv', {}) };
  const serverOptions: ServerOptions = {
    run: { command, args, options: { env } },
    debug: { command, args, options: { env } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'slang' },
      { scheme: 'untitled', language: 'slang' },
    ],
    initializationOptions: serverSettings(),
    synchronize: {
      configurationSection: 'slang',
      fileEvents: vscode.workspace.createFileSystemWatcher('**/{*.slang,*.slangh,*.vfx,*.hlsl,*.hlsli,*.fx,slang-analyzer.json,slangdconfig.json}'),
    },
    outputChannel: output,
    traceOutputChannel: traceOutput,
    middleware: {
      // `slang.checkGradients` is the server's command (the client
      // registers it); from the command palette it has no arguments: the
      // function at the cursor.
      executeCommand: (command, args, next) => {
        const editor = vscode.window.activeTextEditor;
        if (command === 'slang.checkGradients' && args.length === 0 && editor) {
          const p = editor.selection.active;
          args = [editor.document.uri.toString(), { line: p.line, character: p.character }];
        }
        return next(command, args);
      },
    },
  };
  const c = new LanguageClient('slang', 'Slang Language Server', serverOptions, clientOptions);
  client = c;
  c.onDidChangeState((e) => {
    if (client !== c) {
      return;
    }
    if (e.newState === State.Running) {
      setStatus('running', `\`${command}\``);
    } else if (e.newState === State.Starting) {
      setStatus('starting');
    } else {
      setStatus('stopped');
    }
  });
  try {
    await c.start();
    setStatus('running', `\`${command}\``);
  } catch (e) {
    const message = `cannot start ${command}: ${e instanceof Error ? e.message : String(e)}`;
    output.appendLine(`[error] ${message}`);
    setStatus('error', message);
    void vscode.window.showErrorMessage(`Slang: ${message}`, 'Show Output').then((choice) => {
      if (choice) {
        output.show(true);
      }
    });
  }
}

async function restart(): Promise<void> {
  const old = client;
  client = undefined;
  if (old) {
    setStatus('stopped');
    await old.stop().catch((e: unknown) => output.appendLine(`[warn] stopping the server: ${String(e)}`));
  }
  await start();
}

async function statusMenu(): Promise<void> {
  const pick = await vscode.window.showQuickPick(['Restart Server', 'Show Server Output'], {
    title: 'slang-analyzer',
  });
  if (pick === 'Restart Server') {
    await restart();
  } else if (pick === 'Show Server Output') {
    output.show(true);
  }
}

/** The active Slang editor, or a message saying why there is none. */
function slangEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'slang' || editor.document.uri.scheme === SCHEME) {
    void vscode.window.showWarningMessage('Slang: open a Slang file first.');
    return undefined;
  }
  return editor;
}

function runningClient(): LanguageClient | undefined {
  if (!client || !client.isRunning()) {
    void vscode.window.showErrorMessage('Slang: the language server is not running.', 'Restart Server').then((c) => {
      if (c) {
        void restart();
      }
    });
    return undefined;
  }
  return client;
}

function errorText(e: unknown): string {
  if (e instanceof Error) {
    return e.message;
  }
  if (typeof e === 'object' && e !== null && 'message' in e) {
    return String((e as { message: unknown }).message);
  }
  return String(e);
}

async function showGenerated(doc: GeneratedDocument, beside: boolean): Promise<void> {
  const uri = documents.set(doc.uri, doc.text);
  let shown = await vscode.workspace.openTextDocument(uri);
  const language = await displayLanguage(doc.languageId);
  if (shown.languageId !== language) {
    shown = await vscode.languages.setTextDocumentLanguage(shown, language).then(
      (d) => d,
      () => shown,
    );
  }
  await vscode.window.showTextDocument(shown, {
    preview: false,
    viewColumn: beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active,
  });
}

/** The language to show a generated document in: its own if VS Code knows
 * it, else a close one. */
async function displayLanguage(languageId: string): Promise<string> {
  const known = await vscode.languages.getLanguages();
  if (known.includes(languageId)) {
    return languageId;
  }
  const fallback: Record<string, string> = { msl: 'cpp', glsl: 'c', wgsl: 'rust', spirv: 'plaintext' };
  const f = fallback[languageId] ?? 'plaintext';
  return known.includes(f) ? f : 'plaintext';
}

async function showDerivative(mode: 'fwd' | 'bwd' | 'passes', uri?: unknown, position?: unknown): Promise<void> {
  const editor = slangEditor();
  const c = runningClient();
  const at = typeof uri === 'string' && isPosition(position);
  if (!c || (!editor && !at)) {
    return;
  }
  try {
    const doc = await c.sendRequest(DerivativeRequest, {
      textDocument: at ? { uri } : c.code2ProtocolConverter.asTextDocumentIdentifier(editor!.document),
      position: at ? position : c.code2ProtocolConverter.asPosition(editor!.selection.active),
      mode,
    });
    await showGenerated({ ...doc, uri: derivativeUri(doc.uri, mode) }, true);
  } catch (e) {
    void vscode.window.showErrorMessage(`Slang: ${errorText(e)}`);
  }
}

/** An LSP position (as a code lens's command arguments carry it). */
function isPosition(p: unknown): p is { line: number; character: number } {
  const o = p as { line?: unknown; character?: unknown } | undefined;
  return typeof o?.line === 'number' && typeof o?.character === 'number';
}

/** Entry points of a Slang source: functions with `[shader("…")]` or
 * `[numthreads(…)]` among their attributes. */
export function entryPoints(text: string): string[] {
  const names: string[] = [];
  const re = /((?:\[\s*[A-Za-z_]\w*(?:\s*\([^\]]*\))?\s*\]\s*)+)[A-Za-z_][\w<>,:\s]*?\s+([A-Za-z_]\w*)\s*\(/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (/\[\s*(shader|numthreads)\b/.test(m[1]) && !names.includes(m[2])) {
      names.push(m[2]);
    }
  }
  return names;
}

async function showCompiledOutput(targetArg?: string, entryArg?: string): Promise<void> {
  const editor = slangEditor();
  const c = editor && runningClient();
  if (!editor || !c) {
    return;
  }
  const config = vscode.workspace.getConfiguration('slang');
  let target = targetArg ?? config.get<string>('compile.target', 'wgsl');
  if (!targetArg && config.get<boolean>('compile.askTarget', true)) {
    const items = [target, ...TARGETS.filter((t) => t !== target)];
    const picked = await vscode.window.showQuickPick(items, { title: 'Slang: compile target' });
    if (!picked) {
      return;
    }
    target = picked;
  }
  let entryPoint = entryArg;
  if (entryPoint === undefined) {
    const entries = entryPoints(editor.document.getText());
    if (entries.length > 1) {
      const picked = await vscode.window.showQuickPick(entries, { title: 'Slang: entry point' });
      if (!picked) {
        return;
      }
      entryPoint = picked;
    } else {
      entryPoint = entries[0];
    }
  }
  try {
    const doc = await c.sendRequest(CompileRequest, {
      textDocument: c.code2ProtocolConverter.asTextDocumentIdentifier(editor.document),
      target,
      entryPoint,
    });
    await showGenerated(doc, true);
  } catch (e) {
    void vscode.window.showErrorMessage(`Slang: ${errorText(e)}`);
  }
}
