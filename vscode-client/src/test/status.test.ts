import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readToolMsport } from '../common/pyproject';
import { effective, effectiveTarget, plainTranslate, statusAccessibleLabel, statusText, statusTooltip, statusVisible } from '../common/status';

describe('readToolMsport', () => {
    it('reads target-version and backend from [tool.msport] only', () => {
        const text = [
            '[project]',
            'name = "demo"',
            'backend = "not-this-one"',
            '',
            '[tool.msport]  # porting settings',
            'target-version = "2.5"   # the cluster runs 2.5',
            "backend = 'GPU'",
            'ignore = ["MS103"]',
            '',
            '[tool.ruff]',
            'target-version = "py39"',
        ].join('\n');
        assert.deepEqual(readToolMsport(text), { targetVersion: '2.5', backend: 'GPU' });
    });

    it('returns nothing without the table', () => {
        assert.deepEqual(readToolMsport('[tool.other]\ntarget-version = "2.5"\n'), {});
        assert.deepEqual(readToolMsport(''), {});
    });
});

describe('effective values', () => {
    it('takes editor settings, then pyproject.toml, then the default', () => {
        assert.deepEqual(effective('2.3', '2.5', '2.10'), { value: '2.3', source: 'settings' });
        assert.deepEqual(effective(undefined, '2.5', '2.10'), { value: '2.5', source: 'pyproject' });
        assert.deepEqual(effective(undefined, undefined, '2.10'), { value: '2.10', source: 'default' });
    });

    it('lower-cases the backend from pyproject.toml', () => {
        assert.deepEqual(effectiveTarget({}, { backend: 'GPU' }).backend, { value: 'gpu', source: 'pyproject' });
        assert.deepEqual(effectiveTarget({ targetVersion: '2.2' }, {}).version, { value: '2.2', source: 'settings' });
    });
});

describe('status bar', () => {
    const running = {
        state: 'running' as const,
        version: { value: '2.5', source: 'pyproject' as const },
        backend: { value: 'cpu', source: 'settings' as const },
        problems: [],
    };

    it('shows version and backend with a state icon', () => {
        assert.equal(statusText(running), '$(check) msport 2.5 · CPU');
        assert.equal(statusText({ ...running, state: 'starting' }), '$(sync~spin) msport 2.5 · CPU');
        assert.equal(statusText({ ...running, state: 'failed' }), '$(error) msport 2.5 · CPU');
        assert.equal(statusText({ ...running, problems: ['bad setting'] }), '$(warning) msport 2.5 · CPU');
    });

    it('says where each value comes from and lists recent problems', () => {
        const tooltip = statusTooltip({ ...running, problems: ['p1', 'p2', 'p3', 'p4'] });
        assert.match(tooltip, /Target: MindSpore 2\.5 \(from pyproject\.toml\)/);
        assert.match(tooltip, /Backend: CPU \(from settings\)/);
        assert.ok(!tooltip.includes('p1') && tooltip.includes('p4'));
    });

    it('shows while a Python file is visible, or when the server failed', () => {
        assert.ok(statusVisible('running', ['Log', 'python']));
        assert.ok(!statusVisible('running', ['markdown']));
        assert.ok(!statusVisible('starting', []));
        assert.ok(statusVisible('failed', []));
    });

    it('gives screen readers words instead of icon names', () => {
        assert.equal(statusAccessibleLabel({ ...running, state: 'failed' }), 'msport 2.5 CPU: Server failed to start: see the msport log');
    });

    it('fills numbered placeholders', () => {
        assert.equal(plainTranslate('{1} then {0}', 'a', 2), '2 then a');
    });
});
