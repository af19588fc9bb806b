/** The status-bar item: server state, target MindSpore version and backend; click to change. */

import * as vscode from 'vscode';
import { COMMANDS } from './common/constants';
import { readToolMsport, ToolTable } from './common/pyproject';
import { effectiveTarget, statusAccessibleLabel, statusText, statusTooltip, statusVisible } from './common/status';
import type { ServerManager } from './server';

export class StatusBar implements vscode.Disposable {
    private readonly item: vscode.StatusBarItem;
    private table: ToolTable = {};
    private readonly disposables: vscode.Disposable[] = [];

    constructor(private readonly server: ServerManager) {
        this.item = vscode.window.createStatusBarItem('msport.status', vscode.StatusBarAlignment.Right, 100);
        this.item.name = 'msport';
        this.item.command = COMMANDS.showStatusMenu;
        this.disposables.push(
            this.item,
            server.onDidChange(() => this.render()),
            vscode.window.onDidChangeVisibleTextEditors(() => this.render()),
        );
        void this.readPyproject();
    }

    /** pyproject.toml of the first workspace folder, for values the editor settings leave unset. */
    async readPyproject(): Promise<void> {
        const folder = vscode.workspace.workspaceFolders?.[0];
        this.table = {};
        if (folder) {
            try {
                const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, 'pyproject.toml'));
                this.table = readToolMsport(new TextDecoder().decode(bytes));
            } catch {
                // no pyproject.toml: msport's defaults apply
            }
        }
        this.render();
    }

    render(): void {
        const inputs = { state: this.server.state, problems: this.server.problems, ...effectiveTarget(this.server.analysis, this.table) };
        this.item.text = statusText(inputs);
        this.item.tooltip = statusTooltip(inputs, vscode.l10n.t);
        // Read by screen readers instead of the icon names in the text.
        this.item.accessibilityInformation = { label: statusAccessibleLabel(inputs, vscode.l10n.t) };
        this.item.backgroundColor =
            this.server.state === 'failed' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
        const languages = vscode.window.visibleTextEditors.map((editor) => editor.document.languageId);
        if (statusVisible(this.server.state, languages)) {
            this.item.show();
        } else {
            this.item.hide();
        }
    }

    get effective() {
        return effectiveTarget(this.server.analysis, this.table);
    }

    dispose(): void {
        for (const disposable of this.disposables) {
            disposable.dispose();
        }
    }
}
