import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyReportFailure, reportArgs, reportSucceeded, scanSummary, webviewHtml } from '../common/report';

describe('report', () => {
    it('builds the msport report command line', () => {
        assert.deepEqual(reportArgs('/ws', '/tmp/r.html'), ['report', '/ws', '--format', 'html', '-o', '/tmp/r.html']);
    });

    it('passes the editor settings on as flags', () => {
        assert.deepEqual(
            reportArgs('/ws', '/r.html', { targetVersion: '2.2', backend: 'cpu', ignore: ['MS102', 'MS2'], select: [], severity: { MS101: 'error' } }),
            ['report', '/ws', '--format', 'html', '-o', '/r.html', '--target-version', '2.2', '--backend', 'cpu', '--ignore', 'MS102,MS2'],
        );
    });

    it("recognises argparse's answer from an msport without the report command", () => {
        const stderr = "usage: msport [-h] [--version] COMMAND ...\nmsport: error: argument COMMAND: invalid choice: 'report' (choose from 'check', 'serve')\n";
        assert.equal(classifyReportFailure(stderr), 'no-report-command');
        assert.equal(classifyReportFailure('Traceback ...\nOSError: disk full'), 'failed');
    });

    it('counts exit 1 (findings) with an output file as success', () => {
        assert.ok(reportSucceeded(0, true));
        assert.ok(reportSucceeded(1, true));
        assert.ok(!reportSucceeded(2, true));
        assert.ok(!reportSucceeded(0, false));
        assert.ok(!reportSucceeded(null, true));
    });

    it('puts a script-free Content-Security-Policy into the report head', () => {
        const html = webviewHtml('<html><head><title>r</title></head><body>x</body></html>', 'vscode-resource:');
        assert.match(html, /<head>\n<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src vscode-resource: 'unsafe-inline'/);
        assert.ok(!/script-src/.test(html));
        assert.match(webviewHtml('<p>fragment</p>', 'x'), /^<!DOCTYPE html><html><head><meta [^>]+><\/head><body><p>fragment<\/p><\/body><\/html>$/);
    });

    it('summarises what the scan returned', () => {
        assert.equal(scanSummary('12 findings'), '12 findings');
        assert.equal(scanSummary({ summary: 'done' }), 'done');
        assert.equal(scanSummary({ files: 3, findings: 7 }), '7 findings in 3 files');
        assert.equal(
            scanSummary({ files: 5, analysed: 4, findings: 9, filesWithFindings: 2, errors: ['a.py: bad'], cancelled: true }),
            '9 findings in 2 of 5 files; 1 could not be checked (cancelled)',
        );
        assert.equal(scanSummary(null), undefined);
        assert.equal(scanSummary({ other: 1 }), undefined);
    });
});
