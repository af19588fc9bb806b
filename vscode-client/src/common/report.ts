import { plainTranslate, Translate } from './status';

/** "Show Migration Report": `msport report <folder> --format html -o <file>`, shown in a webview. */

/** Command-line flags of `msport report` for the analysis settings the user set in the editor. */
const REPORT_FLAGS: Record<string, string> = {
    targetVersion: '--target-version',
    backend: '--backend',
    mode: '--mode',
    jitLevel: '--jit-level',
    select: '--select',
    ignore: '--ignore',
};

/** The report is made with the same settings as the squiggles (msport.severity has no flag). */
export function reportArgs(folder: string, output: string, analysis: Record<string, unknown> = {}): string[] {
    const args = ['report', folder, '--format', 'html', '-o', output];
    for (const [key, flag] of Object.entries(REPORT_FLAGS)) {
        const value = analysis[key];
        if (typeof value === 'string' && value) {
            args.push(flag, value);
        } else if (Array.isArray(value) && value.length > 0) {
            args.push(flag, value.join(','));
        }
    }
    return args;
}

export type ReportFailure = 'no-report-command' | 'failed';

/** argparse rejects an unknown subcommand with "invalid choice: 'report'". */
export function classifyReportFailure(stderr: string): ReportFailure {
    return /invalid choice: '?report'?/.test(stderr) ? 'no-report-command' : 'failed';
}

/** msport exits 1 when it found something: that is a successful report, not a failure. */
export function reportSucceeded(exitCode: number | null, outputExists: boolean): boolean {
    return outputExists && (exitCode === 0 || exitCode === 1);
}

/**
 * The report's HTML with a Content-Security-Policy that allows its inline styles and data
 * images but no scripts or network: the webview shows a static document.
 */
export function webviewHtml(reportHtml: string, cspSource: string): string {
    const csp =
        `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; ` +
        `style-src ${cspSource} 'unsafe-inline'; img-src ${cspSource} data:; font-src ${cspSource};">`;
    if (/<head[^>]*>/i.test(reportHtml)) {
        return reportHtml.replace(/<head[^>]*>/i, (head) => `${head}\n${csp}`);
    }
    return `<!DOCTYPE html><html><head>${csp}</head><body>${reportHtml}</body></html>`;
}

/** A one-line summary of what msport.scanWorkspace returned, whatever its exact shape. */
export function scanSummary(result: unknown, t: Translate = plainTranslate): string | undefined {
    if (typeof result === 'string') {
        return result;
    }
    if (!result || typeof result !== 'object') {
        return undefined;
    }
    const r = result as Record<string, unknown>;
    for (const key of ['summary', 'message']) {
        const value = r[key];
        if (typeof value === 'string') {
            return value;
        }
    }
    if (typeof r.findings !== 'number' || typeof r.files !== 'number') {
        return undefined;
    }
    let text =
        typeof r.filesWithFindings === 'number'
            ? t('{0} findings in {1} of {2} files', r.findings, r.filesWithFindings, r.files)
            : t('{0} findings in {1} files', r.findings, r.files);
    if (Array.isArray(r.errors) && r.errors.length > 0) {
        text += t('; {0} could not be checked', r.errors.length);
    }
    if (r.cancelled === true) {
        text += t(' (cancelled)');
    }
    return text;
}
