/**
 * The interpreter selected in the Python extension (ms-python.python), when it is installed.
 * Only the small part of its API used here is typed, so the extension does not depend on it.
 */

import * as vscode from 'vscode';

interface EnvironmentPath {
    id: string;
    path: string;
}

interface ResolvedEnvironment {
    executable: { uri?: vscode.Uri };
    version?: { major: number; minor: number; micro: number };
}

interface PythonExtensionApi {
    environments: {
        getActiveEnvironmentPath(resource?: vscode.Uri): EnvironmentPath;
        resolveEnvironment(env: EnvironmentPath | string): Promise<ResolvedEnvironment | undefined>;
        onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
    };
}

const PYTHON_EXTENSION = 'ms-python.python';

async function api(): Promise<PythonExtensionApi | undefined> {
    const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
    if (!extension) {
        return undefined;
    }
    try {
        const exports = extension.isActive ? extension.exports : await extension.activate();
        return exports?.environments ? exports : undefined;
    } catch {
        return undefined;
    }
}

/** Whether the Python extension is installed and has finished activating. */
export function pythonExtensionReady(): boolean {
    return vscode.extensions.getExtension(PYTHON_EXTENSION)?.isActive ?? false;
}

/** The selected interpreter as an argv prefix, or undefined when the Python extension has none. */
export async function selectedInterpreter(resource?: vscode.Uri): Promise<string[] | undefined> {
    const python = await api();
    if (!python) {
        return undefined;
    }
    const env = await python.environments.resolveEnvironment(python.environments.getActiveEnvironmentPath(resource));
    const executable = env?.executable.uri?.fsPath;
    return executable ? [executable] : undefined;
}

/** Calls `listener` when the user picks another interpreter in the Python extension. */
export async function onInterpreterChanged(listener: () => void): Promise<vscode.Disposable | undefined> {
    const python = await api();
    return python?.environments.onDidChangeActiveEnvironmentPath(() => listener());
}
