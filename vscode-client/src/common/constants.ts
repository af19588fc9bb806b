/** Names shared by the extension and its tests; nothing here imports `vscode`. */

export const SECTION = 'msport';
export const CLIENT_ID = 'msport';
export const CLIENT_NAME = 'msport';

/** Commands the server runs (workspace/executeCommand); vscode-languageclient registers them. */
export const SERVER_COMMANDS = {
    scanWorkspace: 'msport.scanWorkspace',
    convertWeights: 'msport.convertWeights',
} as const;

/** Commands the extension itself registers. */
export const COMMANDS = {
    restart: 'msport.restart',
    showReport: 'msport.showReport',
    selectTargetVersion: 'msport.selectTargetVersion',
    selectBackend: 'msport.selectBackend',
    showLogs: 'msport.showLogs',
    showStatusMenu: 'msport.showStatusMenu',
    showSettings: 'msport.showSettings',
} as const;

/** msport's own requests (server/msport/lsp/server.py). */
export const SERVER_REQUESTS = {
    effectiveSettings: 'msport/effectiveSettings',
} as const;

/** Context keys for `when` clauses in package.json. */
export const CONTEXT = {
    serverRunning: 'msport.serverRunning',
    canScanWorkspace: 'msport.canScanWorkspace',
} as const;

/** Must match SUPPORTED_VERSIONS in server/msport/analysis/settings.py (a test checks). */
export const TARGET_VERSIONS = ['2.2', '2.3', '2.4', '2.5', '2.6', '2.7', '2.8', '2.9', '2.10'] as const;
export const DEFAULT_TARGET_VERSION = '2.10';
export const BACKENDS = ['ascend', 'gpu', 'cpu'] as const;
export const DEFAULT_BACKEND = 'ascend';
export const BACKEND_LABELS: Record<string, string> = { ascend: 'Ascend', gpu: 'GPU', cpu: 'CPU' };

/** Settings the server reads through workspace/configuration: changing them needs no restart. */
export const ANALYSIS_KEYS = ['targetVersion', 'backend', 'mode', 'jitLevel', 'select', 'ignore', 'severity', 'extendRules', 'language'] as const;
/** Settings that decide how the server process is started: changing them restarts it. */
export const LAUNCH_KEYS = ['interpreter', 'importStrategy', 'path'] as const;
/** Settings the extension reads for itself. */
export const CLIENT_KEYS = ['showNotifications', 'trace.server'] as const;

/** The lowest Python the server runs on (pyproject.toml: requires-python). */
export const MIN_PYTHON: [number, number] = [3, 9];
