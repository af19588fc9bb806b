/** Text and tooltip of the status-bar item; `t` is vscode.l10n.t in the extension. */

import { BACKEND_LABELS, DEFAULT_BACKEND, DEFAULT_TARGET_VERSION } from './constants';
import type { ToolTable } from './pyproject';

export type Translate = (message: string, ...args: Array<string | number>) => string;

export const plainTranslate: Translate = (message, ...args) =>
    message.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)] ?? `{${i}}`));

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';
export type ValueSource = 'settings' | 'pyproject' | 'default';

export interface Effective {
    value: string;
    source: ValueSource;
}

/** The value the server uses: editor settings, then pyproject.toml, then msport's default. */
export function effective(explicit: unknown, fromPyproject: string | undefined, fallback: string): Effective {
    if (typeof explicit === 'string' && explicit) {
        return { value: explicit, source: 'settings' };
    }
    if (fromPyproject) {
        return { value: fromPyproject, source: 'pyproject' };
    }
    return { value: fallback, source: 'default' };
}

export function effectiveTarget(analysis: Record<string, unknown>, table: ToolTable): { version: Effective; backend: Effective } {
    return {
        version: effective(analysis.targetVersion, table.targetVersion, DEFAULT_TARGET_VERSION),
        backend: effective(analysis.backend, table.backend?.toLowerCase(), DEFAULT_BACKEND),
    };
}

export function backendLabel(backend: string): string {
    return BACKEND_LABELS[backend.toLowerCase()] ?? backend;
}

export interface StatusInputs {
    state: ServerState;
    version: Effective;
    backend: Effective;
    /** Warnings and errors the server or the extension reported since the last start. */
    problems: string[];
}

const ICONS: Record<ServerState, string> = {
    starting: '$(sync~spin)',
    running: '$(check)',
    stopped: '$(circle-slash)',
    failed: '$(error)',
};

/**
 * Shown while a Python file is visible (focusing the Output panel or the Problems view keeps it),
 * and always when the server failed, so that the way to its log stays in sight.
 */
export function statusVisible(state: ServerState, visibleLanguages: readonly string[]): boolean {
    return state === 'failed' || visibleLanguages.includes('python');
}

export function statusText(inputs: StatusInputs): string {
    const icon = inputs.state === 'running' && inputs.problems.length > 0 ? '$(warning)' : ICONS[inputs.state];
    return `${icon} msport ${inputs.version.value} · ${backendLabel(inputs.backend.value)}`;
}

export function statusAccessibleLabel(inputs: StatusInputs, t: Translate = plainTranslate): string {
    return `msport ${inputs.version.value} ${backendLabel(inputs.backend.value)}: ${stateText(inputs.state, t)}`;
}

function stateText(state: ServerState, t: Translate): string {
    return {
        starting: t('Server starting'),
        running: t('Server running'),
        stopped: t('Server stopped'),
        failed: t('Server failed to start: see the msport log'),
    }[state];
}

export function statusTooltip(inputs: StatusInputs, t: Translate = plainTranslate): string {
    const from = (source: ValueSource) =>
        source === 'settings' ? t('from settings') : source === 'pyproject' ? t('from pyproject.toml') : t('default');
    const lines = [
        stateText(inputs.state, t),
        t('Target: MindSpore {0} ({1})', inputs.version.value, from(inputs.version.source)),
        t('Backend: {0} ({1})', backendLabel(inputs.backend.value), from(inputs.backend.source)),
    ];
    for (const problem of inputs.problems.slice(-3)) {
        lines.push(`⚠ ${problem}`);
    }
    lines.push(t('Click to change the target version or backend'));
    return lines.join('\n');
}
