import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { chooseInterpreter, describeLaunch, LaunchInputs, msportLaunch, parseProbe, PROBE_SOURCE, versionAtLeast } from '../common/launch';

const TOOL = '/ext/bundled/tool/msport_tool.py';

type Overrides = Partial<Omit<LaunchInputs, 'settings'>> & { settings?: Partial<LaunchInputs['settings']> };

function inputs(overrides: Overrides = {}): LaunchInputs {
    return {
        platform: 'linux',
        bundledTool: TOOL,
        workspaceFolder: '/ws',
        ...overrides,
        settings: { interpreter: [], importStrategy: 'useBundled', path: [], ...overrides.settings },
    };
}

describe('chooseInterpreter', () => {
    it('prefers msport.interpreter, then the Python extension, then python3 on the PATH', () => {
        assert.deepEqual(chooseInterpreter(inputs({ settings: { interpreter: ['/a/python'] }, pythonExtension: ['/b/python'] })), {
            argv: ['/a/python'],
            source: 'msport.interpreter',
        });
        assert.deepEqual(chooseInterpreter(inputs({ pythonExtension: ['/b/python'] })), { argv: ['/b/python'], source: 'python-extension' });
        assert.deepEqual(chooseInterpreter(inputs()), { argv: ['python3'], source: 'default' });
        assert.deepEqual(chooseInterpreter(inputs({ platform: 'win32' })).argv, ['python']);
    });
});

describe('msportLaunch', () => {
    it('runs the bundled tool by default', () => {
        const launch = msportLaunch(inputs({ pythonExtension: ['/venv/bin/python'] }), ['serve']);
        assert.equal(launch.command, '/venv/bin/python');
        assert.deepEqual(launch.args, [TOOL, 'serve']);
        assert.equal(launch.source, 'bundled');
        assert.equal(launch.fellBack, false);
    });

    it('keeps interpreter arguments before the script', () => {
        const launch = msportLaunch(inputs({ settings: { interpreter: ['py', '-3.11'] } }), ['serve']);
        assert.deepEqual([launch.command, ...launch.args], ['py', '-3.11', TOOL, 'serve']);
    });

    it("runs the environment's msport with fromEnvironment", () => {
        const launch = msportLaunch(inputs({ settings: { importStrategy: 'fromEnvironment' } }), ['serve']);
        assert.deepEqual([launch.command, ...launch.args], ['python3', '-m', 'msport', 'serve']);
        assert.equal(launch.source, 'environment');
    });

    it('falls back to the bundled copy when the environment has no msport', () => {
        const launch = msportLaunch(inputs({ settings: { importStrategy: 'fromEnvironment' }, environmentHasMsport: false }), ['serve']);
        assert.deepEqual(launch.args, [TOOL, 'serve']);
        assert.equal(launch.fellBack, true);
    });

    it('runs msport.path as given, ignoring the interpreter', () => {
        const launch = msportLaunch(inputs({ settings: { path: ['/opt/msport', '--quiet'], interpreter: ['/x/python'] } }), [
            'report',
            '/ws',
        ]);
        assert.deepEqual([launch.command, ...launch.args], ['/opt/msport', '--quiet', 'report', '/ws']);
        assert.equal(launch.source, 'msport.path');
        assert.equal(launch.interpreter, undefined);
    });

    it('quotes arguments with spaces in the log line', () => {
        const launch = msportLaunch(inputs({ settings: { interpreter: ['/My Python/python'] } }), ['serve']);
        assert.equal(describeLaunch(launch), `"/My Python/python" ${TOOL} serve`);
    });
});

describe('interpreter probe', () => {
    it("parses what the probe prints in a real Python", () => {
        const out = spawnSync('python3', ['-c', PROBE_SOURCE], { encoding: 'utf8' });
        assert.equal(out.status, 0, out.stderr);
        const probe = parseProbe(out.stdout);
        assert.ok(probe, out.stdout);
        assert.equal(probe.version[0], 3);
        assert.equal(typeof probe.msport, 'boolean');
    });

    it('rejects output that is not the probe line', () => {
        assert.equal(parseProbe(''), undefined);
        assert.equal(parseProbe('Traceback (most recent call last):'), undefined);
        assert.equal(parseProbe('{"version": [3, 11], "msport": true}'), undefined);
        assert.deepEqual(parseProbe('noise\n{"version": [3, 9, 1], "msport": false}\n'), { version: [3, 9, 1], msport: false });
    });

    it('compares versions component by component', () => {
        assert.ok(versionAtLeast([3, 9, 0], [3, 9]));
        assert.ok(versionAtLeast([3, 10, 0], [3, 9]));
        assert.ok(versionAtLeast([4, 0, 0], [3, 9]));
        assert.ok(!versionAtLeast([3, 8, 18], [3, 9]));
        assert.ok(!versionAtLeast([2, 7, 18], [3, 9]));
    });
});
