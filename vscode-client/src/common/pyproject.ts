/**
 * The few `[tool.msport]` values the status bar shows, read from a workspace's pyproject.toml.
 * The server applies the whole table itself; this only reads `key = "string"` lines so the
 * status bar can show what the server uses when the editor settings leave a key unset.
 */

export interface ToolTable {
    targetVersion?: string;
    backend?: string;
}

const KEYS: Record<string, keyof ToolTable> = {
    'target-version': 'targetVersion',
    target_version: 'targetVersion',
    targetVersion: 'targetVersion',
    backend: 'backend',
};

export function readToolMsport(text: string): ToolTable {
    const out: ToolTable = {};
    let inTable = false;
    for (const raw of text.split(/\r?\n/)) {
        const line = raw.replace(/\s+#.*$/, '').trim();
        const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
        if (header) {
            inTable = header[1].replace(/["'\s]/g, '') === 'tool.msport';
            continue;
        }
        if (!inTable) {
            continue;
        }
        const pair = /^([A-Za-z_-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')$/.exec(line);
        const key = pair ? KEYS[pair[1]] : undefined;
        if (pair && key) {
            out[key] = pair[2] ?? pair[3];
        }
    }
    return out;
}
