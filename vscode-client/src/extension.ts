/** msport for VS Code: runs the msport language server on Python files. */

import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { SECTION } from './common/constants';
import { onInterpreterChanged } from './python';
import { ServerManager } from './server';
import { StatusBar } from './statusBar';

let server: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
    const activatedAt = Date.now();
    const log = vscode.window.createOutputChannel('msport', { log: true });
    server = new ServerManager(context, log);
    server.activatedAt = activatedAt;
    const status = new StatusBar(server);
    const pyproject = vscode.workspace.createFileSystemWatcher('**/pyproject.toml');
    const onPyproject = () => {
        void status.readPyproject();
        // The server reads pyproject.toml on each check but re-checks open files only when told.
        server?.notifyConfiguration();
    };
    context.subscriptions.push(
        log,
        server,
        status,
        pyproject,
        pyproject.onDidChange(onPyproject),
        pyproject.onDidCreate(onPyproject),
        pyproject.onDidDelete(onPyproject),
        ...registerCommands(server, status, log),
        vscode.workspace.onDidChangeConfiguration((event) => {
            if (event.affectsConfiguration(SECTION)) {
                server?.settingsChanged();
            }
        }),
        vscode.workspace.onDidGrantWorkspaceTrust(() => void server?.restart('workspace trusted')),
        vscode.workspace.onDidChangeWorkspaceFolders(() => {
            void status.readPyproject();
            void server?.restart('workspace folders changed');
        }),
    );
    // The server starts first: listening for interpreter changes waits for the Python extension
    // to activate, which can take seconds in a fresh window.
    const started = server.restart('extension activated');
    void onInterpreterChanged(() => {
        // Only matters when the Python extension's interpreter is the one in use.
        if (server?.launch?.interpreterSource === 'python-extension') {
            void server?.restart('Python interpreter changed');
        }
    }).then((listener) => listener && context.subscriptions.push(listener));
    await started;
}

export async function deactivate(): Promise<void> {
    await server?.stop();
}
