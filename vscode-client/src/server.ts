/**
 * Starts, restarts and stops the msport language server, and keeps what the status bar shows.
 */

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
    DidChangeConfigurationNotification,
    Executable,
    LanguageClient,
    LanguageClientOptions,
    MessageType,
    ResponseError,
    RevealOutputChannelOn,
    ShowMessageNotification,
    ShowMessageParams,
    State,
} from 'vscode-languageclient/node';
import { CLIENT_ID, CLIENT_NAME, CONTEXT, MIN_PYTHON, SECTION, SERVER_COMMANDS } from './common/constants';
import { describeLaunch, Launch, msportLaunch, parseProbe, PROBE_SOURCE, versionAtLeast } from './common/launch';
import { scanSummary } from './common/report';
import {
    analysisSettings,
    changeAction,
    Inspect,
    launchSettings,
    notificationLevel,
    resolveVariables,
    shouldNotify,
    Snapshot,
} from './common/settings';
import type { ServerState } from './common/status';
import { run } from './process';
import { pythonExtensionReady, selectedInterpreter } from './python';

export function inspector(scope?: vscode.ConfigurationScope): Inspect {
    const config = vscode.workspace.getConfiguration(SECTION, scope);
    return (key) => config.inspect(key);
}

/**
 * vscode-languageclient logs every exit of the server process as an error, "Server process
 * exited with code 0." included, which is how a server stops when asked to (a restart, a
 * settings change, closing the window): that one is logged as information.
 */
class MsportClient extends LanguageClient {
    override error(message: string, data?: unknown, showNotification?: boolean | 'force'): void {
        if (/^Server process exited with code 0\.?$/.test(message)) {
            this.info('Server process exited normally (exit code 0).');
            return;
        }
        super.error(message, data, showNotification);
    }
}

function firstFolder(): vscode.WorkspaceFolder | undefined {
    return vscode.workspace.workspaceFolders?.[0];
}

export class ServerManager implements vscode.Disposable {
    private client: LanguageClient | undefined;
    private queue: Promise<void> = Promise.resolve();
    private snapshot: Snapshot;
    private readonly changed = new vscode.EventEmitter<void>();
    readonly onDidChange = this.changed.event;
    state: ServerState = 'stopped';
    problems: string[] = [];
    launch: Launch | undefined;
    /** Whether the running server offers msport.scanWorkspace (older servers do not). */
    canScanWorkspace = false;
    /** Epoch milliseconds of the extension's activation (see logStartup). */
    activatedAt = Date.now();
    private firstDiagnosticsLogged = false;

    constructor(
        private readonly context: vscode.ExtensionContext,
        private readonly log: vscode.LogOutputChannel,
    ) {
        this.snapshot = this.readSnapshot();
    }

    get analysis(): Record<string, unknown> {
        return this.snapshot.analysis;
    }

    /** A request to the running server; undefined when none is running. */
    async request(method: string, params: unknown): Promise<unknown> {
        if (this.client?.state !== State.Running) {
            return undefined;
        }
        return this.client.sendRequest(method, params);
    }

    /** Restarts are queued so that two quick settings changes never run two servers. */
    restart(reason: string): Promise<void> {
        this.queue = this.queue.then(() => this.doRestart(reason)).catch((error) => this.fail(String(error)));
        return this.queue;
    }

    stop(): Promise<void> {
        this.queue = this.queue.then(() => this.doStop());
        return this.queue;
    }

    /** Called on every change to `msport.*`: notify the server, restart it, or do nothing. */
    settingsChanged(): void {
        const next = this.readSnapshot();
        const action = changeAction(this.snapshot, next);
        this.snapshot = next;
        this.log.info(`settings changed: ${action}`);
        if (action === 'restart') {
            void this.restart('settings changed');
        } else if (action === 'notify') {
            this.notifyConfiguration();
        }
        this.changed.fire();
    }

    /** Makes the server re-read its settings and re-check open files (e.g. pyproject.toml changed). */
    notifyConfiguration(): void {
        if (this.client?.state === State.Running) {
            void this.client.sendNotification(DidChangeConfigurationNotification.type, {
                settings: { [SECTION]: this.snapshot.analysis },
            });
        }
    }

    dispose(): void {
        void this.doStop();
        this.changed.dispose();
    }

    private readSnapshot(): Snapshot {
        const folder = firstFolder();
        return {
            analysis: analysisSettings(inspector()),
            launch: launchSettings(inspector(folder?.uri), vscode.workspace.isTrusted),
        };
    }

    private setState(state: ServerState): void {
        this.state = state;
        void vscode.commands.executeCommand('setContext', CONTEXT.serverRunning, state === 'running');
        this.changed.fire();
    }

    private notify(kind: 'error' | 'warning' | 'info', message: string): void {
        const level = notificationLevel(vscode.workspace.getConfiguration(SECTION).get('showNotifications'));
        if (kind !== 'info') {
            this.problems.push(message);
            this.changed.fire();
        }
        if (!shouldNotify(level, kind)) {
            return;
        }
        const showLogs = vscode.l10n.t('Show Logs');
        const shown =
            kind === 'error'
                ? vscode.window.showErrorMessage(message, showLogs)
                : kind === 'warning'
                  ? vscode.window.showWarningMessage(message, showLogs)
                  : vscode.window.showInformationMessage(message);
        void Promise.resolve(shown).then((choice) => {
            if (choice === showLogs) {
                this.log.show();
            }
        });
    }

    private fail(message: string): void {
        this.log.error(message);
        this.notify('error', message);
        this.setState('failed');
    }

    /** Resolves interpreter, import strategy and msport.path into a command line for `subcommand`. */
    async resolveLaunch(subcommand: string[], options: { probe?: boolean } = {}): Promise<Launch | undefined> {
        const folder = firstFolder();
        const trusted = vscode.workspace.isTrusted;
        const settings = launchSettings(inspector(folder?.uri), trusted);
        const vars = { workspaceFolder: folder?.uri.fsPath, userHome: os.homedir(), env: process.env };
        settings.interpreter = resolveVariables(settings.interpreter, vars);
        settings.path = resolveVariables(settings.path, vars);
        // In restricted mode the Python extension's choice may be a workspace environment: not used.
        // The bundled server runs on any Python 3.9+: it does not wait for the Python extension to
        // activate (seconds, in a fresh window) unless it is ready or the first try failed.
        const wantsPythonExtension =
            trusted && settings.interpreter.length === 0 && settings.path.length === 0 &&
            (settings.importStrategy === 'fromEnvironment' || pythonExtensionReady() || options.probe === true);
        const fromPythonExtension = wantsPythonExtension ? await selectedInterpreter(folder?.uri) : undefined;
        const inputs = {
            settings,
            pythonExtension: fromPythonExtension,
            platform: process.platform,
            bundledTool: this.context.asAbsolutePath(path.join('bundled', 'tool', 'msport_tool.py')),
            workspaceFolder: folder?.uri.fsPath,
        };
        let launch = msportLaunch(inputs, subcommand);
        if (launch.source === 'bundled' && !fs.existsSync(this.bundledLibs())) {
            this.fail(
                vscode.l10n.t(
                    'This msport extension was packaged without its server ({0} is missing). Install a release of the extension, or build it with "npm ci && npm run package" in vscode-client/, which bundles the server; or set msport.importStrategy to fromEnvironment and install msport in your Python.',
                    this.bundledLibs(),
                ),
            );
            return undefined;
        }
        // The bundled server runs on any Python 3.9+ and checks that itself: probing the
        // interpreter first would cost the start of one more Python on every start. A server
        // that does not start is diagnosed with the probe then (see doRestart).
        if (launch.interpreter && (launch.source !== 'bundled' || options.probe)) {
            const [command, ...args] = launch.interpreter;
            const probe = await run(command, [...args, '-c', PROBE_SOURCE], { cwd: launch.cwd, timeoutMs: 20000 });
            const found = parseProbe(probe.stdout);
            if (!found) {
                const detail = probe.error?.message ?? probe.stderr.trim().split('\n').pop() ?? `exit ${probe.code}`;
                this.fail(
                    vscode.l10n.t(
                        'msport could not run the Python interpreter {0} ({1}). Set msport.interpreter or select an interpreter in the Python extension.',
                        launch.interpreter.join(' '),
                        detail,
                    ),
                );
                return undefined;
            }
            if (!versionAtLeast(found.version, MIN_PYTHON)) {
                this.fail(
                    vscode.l10n.t(
                        'msport needs Python {0} or newer, but {1} is Python {2}. Set msport.interpreter to a newer Python.',
                        MIN_PYTHON.join('.'),
                        launch.interpreter.join(' '),
                        found.version.join('.'),
                    ),
                );
                return undefined;
            }
            if (launch.source === 'environment' && !found.msport) {
                launch = msportLaunch({ ...inputs, environmentHasMsport: false }, subcommand);
                this.notify(
                    'warning',
                    vscode.l10n.t(
                        'msport is not installed in {0}, so the msport bundled with the extension is used. Install it there with "python -m pip install msport", or set msport.importStrategy to useBundled.',
                        launch.interpreter?.join(' ') ?? '',
                    ),
                );
            }
        }
        return launch;
    }

    /** bundled/libs inside the installed extension, where scripts/bundle-server.sh put msport. */
    private bundledLibs(): string {
        return this.context.asAbsolutePath(path.join('bundled', 'libs', 'msport'));
    }

    /**
     * The server's environment. The bundled server's bytecode is cached in the extension's
     * storage (always writable, unlike an extension folder installed for all users), and
     * written even where PYTHONDONTWRITEBYTECODE is set for the user's own projects: without a
     * cache, every start compiles pygls, lsprotocol and msport again (about half a second).
     */
    serverEnv(launch: Launch): NodeJS.ProcessEnv {
        const env: NodeJS.ProcessEnv = { ...process.env, PYTHONUTF8: '1' };
        if (launch.source === 'bundled') {
            delete env.PYTHONDONTWRITEBYTECODE;
            env.PYTHONPYCACHEPREFIX = path.join(this.context.globalStorageUri.fsPath, 'pycache');
        }
        return env;
    }

    private async doStop(): Promise<void> {
        const client = this.client;
        this.client = undefined;
        if (client) {
            try {
                await client.stop(2000);
            } catch (error) {
                this.log.warn(`stopping the server: ${String(error)}`);
            }
            await client.dispose(2000).catch(() => undefined);
        }
        this.canScanWorkspace = false;
        void vscode.commands.executeCommand('setContext', CONTEXT.canScanWorkspace, false);
        this.setState('stopped');
    }

    /**
     * Starts the server. The bundled server is started at once with the default interpreter;
     * should it not come up, a second try probes the interpreter (and asks the Python extension
     * for its own), so that a missing or old Python is named instead of a broken connection.
     */
    private async doRestart(reason: string, probe = false): Promise<void> {
        await this.doStop();
        this.problems = [];
        this.snapshot = this.readSnapshot();
        this.setState('starting');
        this.log.info(`starting the server (${reason})`);
        const launch = await this.resolveLaunch(['serve'], { probe });
        if (!launch) {
            return;
        }
        this.launch = launch;
        this.log.info(
            `server: ${describeLaunch(launch)} [msport from ${launch.source}` +
                (launch.interpreterSource ? `, interpreter from ${launch.interpreterSource}` : '') +
                `, workspace ${vscode.workspace.isTrusted ? 'trusted' : 'restricted'}]`,
        );
        // No `transport`: TransportKind.stdio would append --stdio, which `msport serve` rejects;
        // an Executable without one talks over stdin/stdout all the same.
        const executable: Executable = {
            command: launch.command,
            args: launch.args,
            options: { cwd: launch.cwd, env: this.serverEnv(launch) },
        };
        const started = Date.now();
        const client = new MsportClient(CLIENT_ID, CLIENT_NAME, { run: executable, debug: executable }, this.clientOptions());
        client.onNotification(ShowMessageNotification.type, (params) => this.serverMessage(params));
        client.onDidChangeState((event) => {
            if (event.newState === State.Stopped && this.client === client) {
                this.setState('stopped');
            }
        });
        this.client = client;
        try {
            await client.start();
        } catch (error) {
            if (this.client === client) {
                this.client = undefined;
            }
            if (launch.source === 'bundled' && !probe) {
                this.log.warn(`the server did not start (${String(error)}); trying again, probing the interpreter first`);
                return this.doRestart(reason, true);
            }
            this.fail(vscode.l10n.t('The msport server failed to start: {0}. See the msport log for its output.', String(error)));
            return;
        }
        const commands = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
        this.canScanWorkspace = commands.includes(SERVER_COMMANDS.scanWorkspace);
        void vscode.commands.executeCommand('setContext', CONTEXT.canScanWorkspace, this.canScanWorkspace);
        const info = client.initializeResult?.serverInfo;
        this.log.info(`server running: ${info?.name ?? 'msport'} ${info?.version ?? ''} (started in ${Date.now() - started} ms)`.replace('  ', ' '));
        this.setState('running');
    }

    private clientOptions(): LanguageClientOptions {
        return {
            documentSelector: [
                { scheme: 'file', language: 'python' },
                { scheme: 'untitled', language: 'python' },
            ],
            outputChannel: this.log,
            traceOutputChannel: this.log,
            revealOutputChannelOn: RevealOutputChannelOn.Never,
            // VS Code shows the diagnostics under the cursor above the hover: the server's cards
            // then leave out what those already say.
            initializationOptions: { settings: this.snapshot.analysis, client: { hoverShowsDiagnostics: true } },
            middleware: {
                provideDiagnostics: async (document, previousResultId, token, next) => {
                    const report = await next(document, previousResultId, token);
                    this.logFirstDiagnostics(report);
                    return report;
                },
                handleDiagnostics: (uri, diagnostics, next) => {
                    this.logFirstDiagnostics(diagnostics.length > 0 ? { kind: 'full', items: diagnostics } : undefined);
                    next(uri, diagnostics);
                },
                workspace: {
                    // Only the values the user set, so pyproject.toml is not hidden by defaults.
                    configuration: async (params, token, next): Promise<unknown[] | ResponseError<void>> => {
                        const answers: unknown = await next(params, token);
                        if (!Array.isArray(answers)) {
                            return answers as ResponseError<void>;
                        }
                        const values: unknown[] = answers;
                        return params.items.map((item, i): unknown =>
                            item.section === SECTION
                                ? analysisSettings(inspector(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined))
                                : values[i],
                        );
                    },
                },
                executeCommand: async (command, args, next): Promise<unknown> => {
                    const send = async (): Promise<unknown> => (await next(command, args)) as unknown;
                    if (command === SERVER_COMMANDS.convertWeights && args.length === 0) {
                        return this.convertWeights(async (request) => (await next(command, [request])) as unknown);
                    }
                    return command === SERVER_COMMANDS.scanWorkspace ? this.scanWorkspace(send) : send();
                },
            },
        };
    }

    /**
     * Once per window: how long the first findings took, from the extension's activation, and
     * the server's share of it (in the log; the end-to-end tests and bench/editor_startup.py read it).
     */
    private logFirstDiagnostics(report: unknown): void {
        const items = (report as { items?: unknown[] } | undefined)?.items;
        if (this.firstDiagnosticsLogged || !Array.isArray(items) || items.length === 0) {
            return;
        }
        this.firstDiagnosticsLogged = true;
        const now = Date.now();
        this.log.info(`first diagnostics ${now - this.activatedAt} ms after activation (activated at ${this.activatedAt}, shown at ${now} ms since the epoch)`);
    }

    private async scanWorkspace(send: () => Promise<unknown>): Promise<unknown> {
        const result = await vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('msport: scanning the workspace…') },
            () => Promise.resolve(send()),
        );
        const summary = scanSummary(result, vscode.l10n.t);
        this.log.info(`scan workspace: ${summary ?? JSON.stringify(result)}`);
        void vscode.window.showInformationMessage(
            summary
                ? vscode.l10n.t('msport: scanned the workspace: {0}. See the Problems panel.', summary)
                : vscode.l10n.t('msport: workspace scan finished; see the Problems panel.'),
        );
        return result;
    }

    /** From the command palette: the active model file, a checkpoint and an output picked in
     * dialogs; the server converts in a child process and shows the outcome itself. */
    private async convertWeights(send: (request: Record<string, unknown>) => Promise<unknown>): Promise<unknown> {
        const active = vscode.window.activeTextEditor?.document;
        const model =
            active?.languageId === 'python'
                ? active.uri
                : (await vscode.window.showOpenDialog({ title: vscode.l10n.t('The ported MindSpore model file'), filters: { Python: ['py'] } }))?.[0];
        if (!model) {
            return undefined;
        }
        const checkpoint = (
            await vscode.window.showOpenDialog({
                title: vscode.l10n.t('The PyTorch checkpoint to convert'),
                defaultUri: vscode.Uri.joinPath(model, '..'),
                filters: { PyTorch: ['pth', 'pt', 'bin', 'ckpt', 'tar'], [vscode.l10n.t('All files')]: ['*'] },
            })
        )?.[0];
        if (!checkpoint) {
            return undefined;
        }
        const output = await vscode.window.showSaveDialog({
            title: vscode.l10n.t('The MindSpore checkpoint to write'),
            defaultUri: vscode.Uri.joinPath(model, '..', `${model.path.split('/').pop()?.replace(/\.py$/, '') ?? 'model'}.ckpt`),
            filters: { MindSpore: ['ckpt'] },
        });
        if (!output) {
            return undefined;
        }
        const args = await vscode.window.showInputBox({
            title: vscode.l10n.t('Constructor arguments of the model (JSON, optional)'),
            placeHolder: '{"num_classes": 10}',
        });
        if (args === undefined) {
            return undefined;
        }
        const request: Record<string, unknown> = { model: model.toString(), checkpoint: checkpoint.toString(), output: output.toString() };
        if (args.trim()) {
            request.args = args.trim();
        }
        return vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('msport: converting weights…') },
            () => send(request),
        );
    }

    private serverMessage(params: ShowMessageParams): void {
        const kind = params.type === MessageType.Error ? 'error' : params.type === MessageType.Warning ? 'warning' : 'info';
        // The server also logs each message with window/logMessage, so it is in the log already.
        this.notify(kind, params.message);
    }
}
