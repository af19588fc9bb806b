/** msport/effectiveSettings, shown as the pyproject.toml lines that would give the same result. */

export interface EffectiveSetting {
    key: string;
    value: string;
    origin: string;
}

/** Aligned `key = value  # origin` lines under a header naming the file, as TOML. */
export function formatEffectiveSettings(file: string, rows: EffectiveSetting[]): string {
    const assignments = rows.map((row) => `${row.key} = ${row.value}`);
    const width = Math.max(0, ...assignments.map((a) => a.length));
    const lines = rows.map((row, i) => `${assignments[i].padEnd(width)}  # ${row.origin}`);
    return [`# msport settings for ${file}`, '# each value, and where it was set ("default": msport\'s own)', '[tool.msport]', ...lines, ''].join('\n');
}

/** Whether an answer has the shape msport/effectiveSettings returns. */
export function isEffectiveSettings(value: unknown): value is EffectiveSetting[] {
    const isRow = (row: unknown): boolean => {
        if (typeof row !== 'object' || row === null) {
            return false;
        }
        const fields = row as Record<string, unknown>;
        return typeof fields.key === 'string' && typeof fields.value === 'string' && typeof fields.origin === 'string';
    };
    return Array.isArray(value) && value.every(isRow);
}
