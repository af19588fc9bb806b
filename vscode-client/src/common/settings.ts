/**
 * Which msport settings the user set, and what a change to them requires.
 *
 * VS Code's `getConfiguration().get()` fills in defaults, but msport's precedence is
 * editor settings > `[tool.msport]` in pyproject.toml > defaults: sending the editor's defaults
 * would hide pyproject.toml. So only values the user set explicitly are sent to the server.
 */

import { ANALYSIS_KEYS, LAUNCH_KEYS } from './constants';

/** The shape of `WorkspaceConfiguration.inspect()` that matters here. */
export interface Inspected {
    defaultValue?: unknown;
    globalValue?: unknown;
    workspaceValue?: unknown;
    workspaceFolderValue?: unknown;
}

export type Inspect = (key: string) => Inspected | undefined;

export type ImportStrategy = 'useBundled' | 'fromEnvironment';
export type NotificationLevel = 'off' | 'onError' | 'onWarning' | 'always';

export interface LaunchSettings {
    interpreter: string[];
    importStrategy: ImportStrategy;
    path: string[];
}

/**
 * The value the user set, most specific scope first. In an untrusted (restricted) workspace
 * values from the workspace are ignored for settings that start programs.
 */
export function explicitValue(inspected: Inspected | undefined, useWorkspaceValues = true): unknown {
    if (!inspected) {
        return undefined;
    }
    if (useWorkspaceValues) {
        if (inspected.workspaceFolderValue !== undefined) {
            return inspected.workspaceFolderValue;
        }
        if (inspected.workspaceValue !== undefined) {
            return inspected.workspaceValue;
        }
    }
    return inspected.globalValue;
}

/** The analysis settings the user set, camelCase, ready for the server. */
export function analysisSettings(inspect: Inspect): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const key of ANALYSIS_KEYS) {
        const value = explicitValue(inspect(key));
        // language "auto" is the server's default: it follows the locale sent with initialize.
        if (value !== undefined && value !== null && !(key === 'language' && value === 'auto')) {
            out[key] = value;
        }
    }
    return out;
}

function stringList(value: unknown): string[] {
    if (typeof value === 'string') {
        return value.trim() ? [value] : [];
    }
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.length > 0) : [];
}

/** How to start the server. `trusted` false: interpreter and path come only from user settings. */
export function launchSettings(inspect: Inspect, trusted: boolean): LaunchSettings {
    const strategy = explicitValue(inspect('importStrategy'), trusted);
    return {
        interpreter: stringList(explicitValue(inspect('interpreter'), trusted)),
        importStrategy: strategy === 'fromEnvironment' ? 'fromEnvironment' : 'useBundled',
        path: stringList(explicitValue(inspect('path'), trusted)),
    };
}

export function notificationLevel(value: unknown): NotificationLevel {
    return value === 'off' || value === 'onWarning' || value === 'always' ? value : 'onError';
}

/** Whether a message of `kind` pops up under the `msport.showNotifications` level. */
export function shouldNotify(level: NotificationLevel, kind: 'error' | 'warning' | 'info'): boolean {
    switch (level) {
        case 'always':
            return true;
        case 'onWarning':
            return kind !== 'info';
        case 'onError':
            return kind === 'error';
        default:
            return false;
    }
}

/** JSON with sorted object keys, so that `{a, b}` and `{b, a}` compare equal. */
export function stableJson(value: unknown): string {
    if (Array.isArray(value)) {
        return `[${value.map(stableJson).join(',')}]`;
    }
    if (value && typeof value === 'object') {
        const entries = Object.keys(value)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
        return `{${entries.join(',')}}`;
    }
    return JSON.stringify(value) ?? 'null';
}

export interface Snapshot {
    analysis: Record<string, unknown>;
    launch: LaunchSettings;
}

export type ChangeAction = 'none' | 'notify' | 'restart';

/**
 * What a settings change requires. Launch settings restart the server. Analysis settings are
 * sent with workspace/didChangeConfiguration, except when one was removed: the server merges
 * new values into the old ones, so a removed key would linger until the server restarts.
 */
export function changeAction(before: Snapshot, after: Snapshot): ChangeAction {
    for (const key of LAUNCH_KEYS) {
        if (stableJson(before.launch[key]) !== stableJson(after.launch[key])) {
            return 'restart';
        }
    }
    if (Object.keys(before.analysis).some((key) => !(key in after.analysis))) {
        return 'restart';
    }
    return stableJson(before.analysis) === stableJson(after.analysis) ? 'none' : 'notify';
}

export interface VariableContext {
    workspaceFolder?: string;
    userHome: string;
    env: Record<string, string | undefined>;
}

/** `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~` in interpreter and path. */
export function resolveVariables(values: string[], ctx: VariableContext): string[] {
    return values.map((value) => {
        let out = value.replace(/\$\{(workspaceFolder|userHome|env:([^}]+))\}/g, (match, name: string, envName?: string) => {
            if (envName !== undefined) {
                return ctx.env[envName] ?? '';
            }
            if (name === 'userHome') {
                return ctx.userHome;
            }
            return ctx.workspaceFolder ?? match;
        });
        if (out === '~' || out.startsWith('~/')) {
            out = ctx.userHome + out.slice(1);
        }
        return out;
    });
}
