/** The extension's own commands (msport.scanWorkspace is the server's: see server.ts). */

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { BACKENDS, COMMANDS, SECTION, SERVER_COMMANDS, SERVER_REQUESTS, TARGET_VERSIONS } from './common/constants';
import { formatEffectiveSettings, isEffectiveSettings } from './common/effective';
import { describeLaunch } from './common/launch';
import { classifyReportFailure, reportArgs, reportSucceeded, webviewHtml } from './common/report';
import { backendLabel } from './common/status';
import { run } from './process';
import type { ServerManager } from './server';
import type { StatusBar } from './statusBar';

/** Writes a setting where it takes effect for this workspace (user settings with no folder open). */
async function updateSetting(key: string, value: string): Promise<void> {
    const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration(SECTION).update(key, value, target);
}

async function selectTargetVersion(status: StatusBar): Promise<void> {
    const current = status.effective.version.value;
    const newest = TARGET_VERSIONS[TARGET_VERSIONS.length - 1];
    const items = [...TARGET_VERSIONS].reverse().map((version) => ({
        label: version,
        description: [version === current ? vscode.l10n.t('current') : '', version === newest ? vscode.l10n.t('newest') : '']
            .filter(Boolean)
            .join(', '),
    }));
    const picked = await vscode.window.showQuickPick(items, {
        title: vscode.l10n.t('MindSpore version to port to'),
        placeHolder: vscode.l10n.t('msport reports the APIs that are missing or differ in this version'),
    });
    if (picked) {
        await updateSetting('targetVersion', picked.label);
    }
}

async function selectBackend(status: StatusBar): Promise<void> {
    const current = status.effective.backend.value;
    const details: Record<string, string> = {
        ascend: vscode.l10n.t('Huawei Ascend NPU (the default)'),
        gpu: vscode.l10n.t('NVIDIA GPU (CUDA)'),
        cpu: vscode.l10n.t('CPU'),
    };
    const items = BACKENDS.map((backend) => ({
        label: backendLabel(backend),
        value: backend,
        description: backend === current ? vscode.l10n.t('current') : '',
        detail: details[backend],
    }));
    const picked = await vscode.window.showQuickPick(items, {
        title: vscode.l10n.t('Backend to port to'),
        placeHolder: vscode.l10n.t('Operator support differs between Ascend, GPU and CPU'),
    });
    if (picked) {
        await updateSetting('backend', picked.value);
    }
}

async function showStatusMenu(server: ServerManager, status: StatusBar): Promise<void> {
    const { version, backend } = status.effective;
    const items: Array<vscode.QuickPickItem & { command: string }> = [
        { label: `$(versions) ${vscode.l10n.t('Select Target Version')}`, description: version.value, command: COMMANDS.selectTargetVersion },
        { label: `$(server) ${vscode.l10n.t('Select Backend')}`, description: backendLabel(backend.value), command: COMMANDS.selectBackend },
        ...(server.canScanWorkspace ? [{ label: `$(search) ${vscode.l10n.t('Scan Workspace')}`, command: SERVER_COMMANDS.scanWorkspace }] : []),
        { label: `$(book) ${vscode.l10n.t('Show Migration Report')}`, command: COMMANDS.showReport },
        { label: `$(settings) ${vscode.l10n.t('Show Effective Settings')}`, command: COMMANDS.showSettings },
        { label: `$(refresh) ${vscode.l10n.t('Restart Server')}`, command: COMMANDS.restart },
        { label: `$(output) ${vscode.l10n.t('Show Logs')}`, command: COMMANDS.showLogs },
    ];
    const picked = await vscode.window.showQuickPick(items, { title: 'msport' });
    if (picked) {
        await vscode.commands.executeCommand(picked.command);
    }
}

/**
 * Read-only documents of the `msport-settings:` scheme: the effective settings, as computed when
 * the command ran. A virtual document is never dirty, so closing it asks nothing, and it cannot
 * be edited or saved by mistake; running the command again refreshes it.
 */
export class SettingsDocuments implements vscode.TextDocumentContentProvider {
    static readonly scheme = 'msport-settings';
    private readonly contents = new Map<string, string>();
    private readonly changed = new vscode.EventEmitter<vscode.Uri>();
    readonly onDidChange = this.changed.event;

    provideTextDocumentContent(uri: vscode.Uri): string {
        return this.contents.get(uri.toString()) ?? '';
    }

    /** The document for the settings of `file` (a workspace-relative path), with `text`. */
    show(file: string, text: string): vscode.Uri {
        // The file's name in the tab title; the whole path keeps two files' documents apart.
        // (An absolute path, for a file or folder outside the workspace, loses its leading slash.)
        const uri = vscode.Uri.from({ scheme: SettingsDocuments.scheme, path: `/${file.replace(/^[\\/]+/, '')} (msport settings).toml` });
        this.contents.set(uri.toString(), text);
        this.changed.fire(uri);
        return uri;
    }

    dispose(): void {
        this.changed.dispose();
    }
}

/** The settings that govern the active file, and where each was set, in a read-only TOML tab. */
async function showSettings(server: ServerManager, log: vscode.LogOutputChannel, documents: SettingsDocuments): Promise<void> {
    const uri = vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!uri || uri.scheme === SettingsDocuments.scheme) {
        void vscode.window.showWarningMessage(vscode.l10n.t('Open a Python file or a folder to see the msport settings that apply to it.'));
        return;
    }
    let rows: unknown;
    try {
        rows = await server.request(SERVER_REQUESTS.effectiveSettings, { uri: uri.toString() });
    } catch (error) {
        log.error(`${SERVER_REQUESTS.effectiveSettings} failed: ${String(error)}`);
    }
    if (!isEffectiveSettings(rows)) {
        void vscode.window.showErrorMessage(vscode.l10n.t('The msport server is not running or does not know msport/effectiveSettings; see the msport log.'));
        return;
    }
    const file = vscode.workspace.asRelativePath(uri);
    const document = await vscode.workspace.openTextDocument(documents.show(file, formatEffectiveSettings(file, rows)));
    await vscode.languages.setTextDocumentLanguage(document, 'toml').then(undefined, () => document);
    await vscode.window.showTextDocument(document, { preview: true });
}

async function pickFolder(): Promise<vscode.WorkspaceFolder | undefined> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.length <= 1) {
        return folders[0];
    }
    return vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Folder to report on') });
}

async function showReport(server: ServerManager, log: vscode.LogOutputChannel): Promise<void> {
    const folder = await pickFolder();
    if (!folder) {
        void vscode.window.showWarningMessage(vscode.l10n.t('Open a folder to make a migration report of it.'));
        return;
    }
    const output = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'msport-report-')), 'report.html');
    const launch = await server.resolveLaunch(reportArgs(folder.uri.fsPath, output, server.analysis));
    if (!launch) {
        return;
    }
    log.info(`report: ${describeLaunch(launch)}`);
    const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('msport: writing the migration report…') },
        () => run(launch.command, launch.args, { cwd: folder.uri.fsPath, timeoutMs: 600000 }),
    );
    if (!reportSucceeded(result.code, fs.existsSync(output))) {
        log.error(`report failed (exit ${result.code}): ${result.error?.message ?? ''}\n${result.stderr}`);
        const message =
            classifyReportFailure(result.stderr) === 'no-report-command'
                ? vscode.l10n.t('This msport has no report command yet: update msport, or set msport.importStrategy to useBundled.')
                : vscode.l10n.t('msport could not write the migration report (exit status {0}); see the msport log.', String(result.code));
        void vscode.window.showErrorMessage(message);
        return;
    }
    log.info(`report written to ${output}`);
    const panel = vscode.window.createWebviewPanel('msport.report', vscode.l10n.t('msport: Migration Report'), vscode.ViewColumn.Active, {
        enableScripts: false,
    });
    panel.webview.html = webviewHtml(fs.readFileSync(output, 'utf8'), panel.webview.cspSource);
}

export function registerCommands(server: ServerManager, status: StatusBar, log: vscode.LogOutputChannel): vscode.Disposable[] {
    const settingsDocuments = new SettingsDocuments();
    return [
        settingsDocuments,
        vscode.workspace.registerTextDocumentContentProvider(SettingsDocuments.scheme, settingsDocuments),
        vscode.commands.registerCommand(COMMANDS.restart, () => server.restart('Restart Server command')),
        vscode.commands.registerCommand(COMMANDS.selectTargetVersion, () => selectTargetVersion(status)),
        vscode.commands.registerCommand(COMMANDS.selectBackend, () => selectBackend(status)),
        vscode.commands.registerCommand(COMMANDS.showLogs, () => log.show()),
        vscode.commands.registerCommand(COMMANDS.showStatusMenu, () => showStatusMenu(server, status)),
        vscode.commands.registerCommand(COMMANDS.showReport, () => showReport(server, log)),
        vscode.commands.registerCommand(COMMANDS.showSettings, () => showSettings(server, log, settingsDocuments)),
    ];
}
