/** The command line that runs msport (the server, or `msport report`), from the settings. */

import type { LaunchSettings } from './settings';

export type InterpreterSource = 'msport.interpreter' | 'python-extension' | 'default';
export type ServerSource = 'msport.path' | 'bundled' | 'environment';

export interface LaunchInputs {
    settings: LaunchSettings;
    /** The interpreter the Python extension selected, if it is installed and the workspace is trusted. */
    pythonExtension?: string[];
    platform: string;
    /** bundled/tool/msport_tool.py inside the installed extension. */
    bundledTool: string;
    /** For fromEnvironment: whether the interpreter can import msport (undefined: not checked). */
    environmentHasMsport?: boolean;
    workspaceFolder?: string;
}

export interface Launch {
    command: string;
    args: string[];
    cwd?: string;
    interpreter?: string[];
    interpreterSource?: InterpreterSource;
    source: ServerSource;
    /** Set when fromEnvironment was asked for but the bundled copy is used. */
    fellBack: boolean;
}

export function defaultInterpreter(platform: string): string[] {
    return [platform === 'win32' ? 'python' : 'python3'];
}

export function chooseInterpreter(inputs: LaunchInputs): { argv: string[]; source: InterpreterSource } {
    if (inputs.settings.interpreter.length > 0) {
        return { argv: inputs.settings.interpreter, source: 'msport.interpreter' };
    }
    if (inputs.pythonExtension && inputs.pythonExtension.length > 0) {
        return { argv: inputs.pythonExtension, source: 'python-extension' };
    }
    return { argv: defaultInterpreter(inputs.platform), source: 'default' };
}

/** How to run `msport <subcommand...>`: msport.path, the environment's msport or the bundled one. */
export function msportLaunch(inputs: LaunchInputs, subcommand: string[]): Launch {
    const { settings } = inputs;
    if (settings.path.length > 0) {
        return {
            command: settings.path[0],
            args: [...settings.path.slice(1), ...subcommand],
            cwd: inputs.workspaceFolder,
            source: 'msport.path',
            fellBack: false,
        };
    }
    const interpreter = chooseInterpreter(inputs);
    const [command, ...interpreterArgs] = interpreter.argv;
    const wantsEnvironment = settings.importStrategy === 'fromEnvironment';
    if (wantsEnvironment && inputs.environmentHasMsport !== false) {
        return {
            command,
            args: [...interpreterArgs, '-m', 'msport', ...subcommand],
            cwd: inputs.workspaceFolder,
            interpreter: interpreter.argv,
            interpreterSource: interpreter.source,
            source: 'environment',
            fellBack: false,
        };
    }
    return {
        command,
        args: [...interpreterArgs, inputs.bundledTool, ...subcommand],
        cwd: inputs.workspaceFolder,
        interpreter: interpreter.argv,
        interpreterSource: interpreter.source,
        source: 'bundled',
        fellBack: wantsEnvironment,
    };
}

/** A shell-like rendering for the log. */
export function describeLaunch(launch: Launch): string {
    const quote = (s: string) => (/[\s"']/.test(s) ? JSON.stringify(s) : s);
    return [launch.command, ...launch.args].map(quote).join(' ');
}

/** `python -c` source that prints the interpreter's version and whether it can import msport. */
export const PROBE_SOURCE =
    'import sys, json, importlib.util\n' +
    'spec = importlib.util.find_spec("msport")\n' +
    'print(json.dumps({"version": list(sys.version_info[:3]), "msport": spec is not None}))';

export interface ProbeResult {
    version: [number, number, number];
    msport: boolean;
}

export function parseProbe(stdout: string): ProbeResult | undefined {
    const line = stdout.trim().split(/\r?\n/).pop();
    if (!line) {
        return undefined;
    }
    try {
        const data = JSON.parse(line) as { version?: unknown; msport?: unknown };
        if (Array.isArray(data.version) && data.version.length === 3 && typeof data.msport === 'boolean') {
            return { version: data.version as [number, number, number], msport: data.msport };
        }
    } catch {
        return undefined;
    }
    return undefined;
}

export function versionAtLeast(version: readonly number[], minimum: readonly number[]): boolean {
    for (let i = 0; i < minimum.length; i++) {
        const v = version[i] ?? 0;
        if (v !== minimum[i]) {
            return v > minimum[i];
        }
    }
    return true;
}
