/** Running a short-lived child process (the interpreter probe, `msport report`). */

import { spawn } from 'child_process';

export interface RunResult {
    code: number | null;
    stdout: string;
    stderr: string;
    /** Set when the program could not be started at all (e.g. ENOENT). */
    error?: Error;
}

export function run(command: string, args: string[], options: { cwd?: string; timeoutMs: number }): Promise<RunResult> {
    return new Promise((resolve) => {
        let stdout = '';
        let stderr = '';
        let settled = false;
        const finish = (result: RunResult) => {
            if (!settled) {
                settled = true;
                clearTimeout(timer);
                resolve(result);
            }
        };
        const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, PYTHONUTF8: '1' }, shell: false });
        const timer = setTimeout(() => {
            child.kill();
            finish({ code: null, stdout, stderr, error: new Error(`timed out after ${options.timeoutMs} ms`) });
        }, options.timeoutMs);
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('error', (error) => finish({ code: null, stdout, stderr, error }));
        child.on('close', (code) => finish({ code, stdout, stderr }));
    });
}
