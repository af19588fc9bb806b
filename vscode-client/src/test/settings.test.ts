import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
    analysisSettings,
    changeAction,
    explicitValue,
    Inspected,
    launchSettings,
    notificationLevel,
    resolveVariables,
    shouldNotify,
    Snapshot,
    stableJson,
} from '../common/settings';

function inspectFrom(values: Record<string, Inspected>) {
    return (key: string) => values[key];
}

describe('explicitValue', () => {
    it('prefers folder over workspace over user values and ignores defaults', () => {
        assert.equal(explicitValue({ defaultValue: 'd', globalValue: 'g', workspaceValue: 'w', workspaceFolderValue: 'f' }), 'f');
        assert.equal(explicitValue({ defaultValue: 'd', globalValue: 'g', workspaceValue: 'w' }), 'w');
        assert.equal(explicitValue({ defaultValue: 'd', globalValue: 'g' }), 'g');
        assert.equal(explicitValue({ defaultValue: 'd' }), undefined);
        assert.equal(explicitValue(undefined), undefined);
    });

    it('uses only user values when workspace values are not allowed', () => {
        assert.equal(explicitValue({ globalValue: 'g', workspaceValue: 'w', workspaceFolderValue: 'f' }, false), 'g');
        assert.equal(explicitValue({ workspaceValue: 'w' }, false), undefined);
    });
});

describe('analysisSettings', () => {
    it('sends only what the user set, so pyproject.toml is not overridden by defaults', () => {
        const settings = analysisSettings(
            inspectFrom({
                targetVersion: { defaultValue: '2.10', workspaceValue: '2.5' },
                backend: { defaultValue: 'ascend' },
                ignore: { defaultValue: [], globalValue: ['MS103'] },
                severity: { defaultValue: {}, workspaceValue: { MS102: 'error' } },
                interpreter: { globalValue: ['/usr/bin/python3'] },
            }),
        );
        assert.deepEqual(settings, { targetVersion: '2.5', ignore: ['MS103'], severity: { MS102: 'error' } });
    });

    it('leaves language "auto" to the server, which follows the display language sent with initialize', () => {
        assert.deepEqual(analysisSettings(inspectFrom({ language: { defaultValue: 'auto', globalValue: 'auto' } })), {});
        assert.deepEqual(analysisSettings(inspectFrom({ language: { defaultValue: 'auto', workspaceValue: 'zh-CN' } })), { language: 'zh-CN' });
    });
});

describe('launchSettings', () => {
    const values = {
        interpreter: { globalValue: ['/usr/bin/python3'], workspaceValue: ['./.venv/bin/python'] },
        importStrategy: { defaultValue: 'useBundled', workspaceValue: 'fromEnvironment' },
        path: { workspaceValue: '/ws/bin/msport' },
    };

    it('reads workspace values in a trusted workspace', () => {
        assert.deepEqual(launchSettings(inspectFrom(values), true), {
            interpreter: ['./.venv/bin/python'],
            importStrategy: 'fromEnvironment',
            path: ['/ws/bin/msport'],
        });
    });

    it('ignores every workspace value in restricted mode', () => {
        assert.deepEqual(launchSettings(inspectFrom(values), false), {
            interpreter: ['/usr/bin/python3'],
            importStrategy: 'useBundled',
            path: [],
        });
    });

    it('treats unknown strategies as useBundled and drops empty entries', () => {
        const settings = launchSettings(
            inspectFrom({ importStrategy: { globalValue: 'bogus' }, interpreter: { globalValue: ['', 'python3'] }, path: { globalValue: '' } }),
            true,
        );
        assert.deepEqual(settings, { interpreter: ['python3'], importStrategy: 'useBundled', path: [] });
    });
});

describe('changeAction', () => {
    const base: Snapshot = {
        analysis: { targetVersion: '2.10', severity: { MS102: 'error', MS101: 'hint' } },
        launch: { interpreter: [], importStrategy: 'useBundled', path: [] },
    };
    const withAnalysis = (analysis: Record<string, unknown>): Snapshot => ({ ...base, analysis });

    it('does nothing when nothing changed, whatever the key order', () => {
        assert.equal(changeAction(base, withAnalysis({ severity: { MS101: 'hint', MS102: 'error' }, targetVersion: '2.10' })), 'none');
    });

    it('notifies the server when an analysis value changes or is added', () => {
        assert.equal(changeAction(base, withAnalysis({ ...base.analysis, targetVersion: '2.2' })), 'notify');
        assert.equal(changeAction(base, withAnalysis({ ...base.analysis, ignore: ['MS102'] })), 'notify');
    });

    it('restarts when an analysis value is removed (the server would keep the old one)', () => {
        assert.equal(changeAction(base, withAnalysis({ severity: base.analysis.severity })), 'restart');
    });

    it('restarts when a launch setting changes', () => {
        assert.equal(changeAction(base, { ...base, launch: { ...base.launch, importStrategy: 'fromEnvironment' } }), 'restart');
        assert.equal(changeAction(base, { ...base, launch: { ...base.launch, interpreter: ['/usr/bin/python3'] } }), 'restart');
        assert.equal(changeAction(base, { ...base, launch: { ...base.launch, path: ['msport'] } }), 'restart');
    });
});

describe('notifications', () => {
    it('maps levels to the kinds that pop up', () => {
        assert.deepEqual(
            (['off', 'onError', 'onWarning', 'always'] as const).map((level) =>
                (['error', 'warning', 'info'] as const).filter((kind) => shouldNotify(level, kind)),
            ),
            [[], ['error'], ['error', 'warning'], ['error', 'warning', 'info']],
        );
    });

    it('defaults unknown values to onError', () => {
        assert.equal(notificationLevel(undefined), 'onError');
        assert.equal(notificationLevel('loud'), 'onError');
        assert.equal(notificationLevel('always'), 'always');
    });
});

describe('resolveVariables', () => {
    it('expands workspaceFolder, userHome, env and ~', () => {
        const ctx = { workspaceFolder: '/ws', userHome: '/home/u', env: { VENV: '/opt/venv' } };
        assert.deepEqual(
            resolveVariables(['${workspaceFolder}/.venv/bin/python', '${userHome}/x', '${env:VENV}/bin/python', '~/py', '${env:NOPE}y'], ctx),
            ['/ws/.venv/bin/python', '/home/u/x', '/opt/venv/bin/python', '/home/u/py', 'y'],
        );
    });

    it('leaves ${workspaceFolder} alone when no folder is open', () => {
        assert.deepEqual(resolveVariables(['${workspaceFolder}/p'], { userHome: '/h', env: {} }), ['${workspaceFolder}/p']);
    });
});

describe('stableJson', () => {
    it('sorts object keys at every depth', () => {
        assert.equal(stableJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } }), '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
    });
});
