import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatEffectiveSettings, isEffectiveSettings } from '../common/effective';

describe('effective settings', () => {
    const rows = [
        { key: 'target-version', value: '"2.5"', origin: 'editor settings (msport.*)' },
        { key: 'severity', value: '{ "MS102" = "error" }', origin: '/ws/pyproject.toml' },
        { key: 'mode', value: '"graph"', origin: 'default' },
    ];

    it('writes aligned TOML lines with each origin as a comment', () => {
        assert.equal(
            formatEffectiveSettings('model.py', rows),
            [
                '# msport settings for model.py',
                '# each value, and where it was set ("default": msport\'s own)',
                '[tool.msport]',
                'target-version = "2.5"            # editor settings (msport.*)',
                'severity = { "MS102" = "error" }  # /ws/pyproject.toml',
                'mode = "graph"                    # default',
                '',
            ].join('\n'),
        );
    });

    it("recognises the server's answer and nothing else", () => {
        assert.ok(isEffectiveSettings(rows));
        assert.ok(isEffectiveSettings([]));
        assert.ok(!isEffectiveSettings(undefined));
        assert.ok(!isEffectiveSettings(null));
        assert.ok(!isEffectiveSettings([{ key: 'mode', value: 3, origin: 'default' }]));
        assert.ok(!isEffectiveSettings({ key: 'mode' }));
    });
});
