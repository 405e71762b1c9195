// Read-only virtual documents for the code the server generates.

import * as vscode from 'vscode';

/** The URI scheme of generated documents (the server names them so too). */
export const SCHEME = 'slang-analyzer';

export class GeneratedDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  /** Stores `text` under the server's `uri` (moved to our scheme if it has
   * another one) and returns the URI to open. */
  set(uri: string, text: string): vscode.Uri {
    let u = vscode.Uri.parse(uri, false);
    if (u.scheme !== SCHEME) {
      u = vscode.Uri.from({ scheme: SCHEME, path: u.path || `/${uri}` });
    }
    const key = u.toString();
    const had = this.texts.has(key);
    this.texts.set(key, text);
    if (had) {
      this.changed.fire(u);
    }
    return u;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '// slang-analyzer: this generated document is gone; run the command again.\n';
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}

/** The URI for a derivative document: the server names it after the
 * function only, so the mode goes into the name (`bwd_diff(f).slang`,
 * `passes(f).slang` for the reverse-mode passes). */
export function derivativeUri(serverUri: string, mode: string): string {
  const m = /^(.*\/)([^/]*?)(\.slang)?$/.exec(serverUri);
  if (!m) {
    return serverUri;
  }
  const name = mode === 'passes' ? `passes(${m[2]})` : `${mode}_diff(${m[2]})`;
  return `${m[1]}${name}${m[3] ?? ''}`;
}
