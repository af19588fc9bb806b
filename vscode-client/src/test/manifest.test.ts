/** package.json, its translations and the code agree: every string shown has a Chinese version. */

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ANALYSIS_KEYS, BACKENDS, CLIENT_KEYS, COMMANDS, LAUNCH_KEYS, SERVER_COMMANDS, TARGET_VERSIONS } from '../common/constants';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, unknown>;

interface Manifest {
    main: string;
    l10n: string;
    contributes: {
        configuration: { properties: Record<string, { enum?: string[]; default?: unknown }> };
        commands: Array<{ command: string; title: string }>;
    };
    capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
}

const manifest = read('package.json') as unknown as Manifest;
const nls = read('package.nls.json') as Record<string, string>;
const nlsZh = read('package.nls.zh-cn.json') as Record<string, string>;
const bundleZh = read('l10n/bundle.l10n.zh-cn.json') as Record<string, string>;
const properties = manifest.contributes.configuration.properties;

function sourceFiles(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
            return entry.name === 'test' ? [] : sourceFiles(full);
        }
        return full.endsWith('.ts') ? [full] : [];
    });
}

/** Every literal passed to vscode.l10n.t or to a `t` parameter in src/. */
function runtimeStrings(): string[] {
    const found = new Set<string>();
    for (const file of sourceFiles(path.join(ROOT, 'src'))) {
        const text = fs.readFileSync(file, 'utf8');
        for (const match of text.matchAll(/\bt\(\s*'((?:[^'\\]|\\.)*)'/g)) {
            found.add(match[1].replace(/\\(.)/g, '$1'));
        }
    }
    return [...found].sort();
}

const placeholders = (s: string) => (s.match(/\{\d+\}/g) ?? []).sort().join(',');

describe('package.json', () => {
    it('points at the compiled extension and the l10n folder', () => {
        assert.equal(manifest.main, './out/extension.js');
        assert.ok(fs.existsSync(path.join(ROOT, manifest.l10n)));
    });

    it('contributes every setting the extension reads, and no other', () => {
        const expected = [...ANALYSIS_KEYS, ...LAUNCH_KEYS, ...CLIENT_KEYS].map((k) => `msport.${k}`).sort();
        assert.deepEqual(Object.keys(properties).sort(), expected);
    });

    it('offers the versions and backends msport knows, newest version as default', () => {
        assert.deepEqual(properties['msport.targetVersion'].enum, [...TARGET_VERSIONS]);
        assert.equal(properties['msport.targetVersion'].default, TARGET_VERSIONS[TARGET_VERSIONS.length - 1]);
        assert.deepEqual(properties['msport.backend'].enum, [...BACKENDS]);
    });

    it('contributes every command', () => {
        const contributed = manifest.contributes.commands.map((c) => c.command).sort();
        assert.deepEqual(contributed, [...Object.values(COMMANDS), ...Object.values(SERVER_COMMANDS)].sort());
    });

    it('restricts the settings that start programs in untrusted workspaces', () => {
        assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.sort(), LAUNCH_KEYS.map((k) => `msport.${k}`).sort());
    });
});

describe('translations', () => {
    it('has an English string for every %key% in package.json', () => {
        const keys = [...JSON.stringify(manifest).matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]);
        assert.ok(keys.length > 30);
        assert.deepEqual(keys.filter((k) => !(k in nls)), []);
        assert.deepEqual(Object.keys(nls).filter((k) => !keys.includes(k)), [], 'unused keys in package.nls.json');
    });

    it('translates package.nls.json into Simplified Chinese completely', () => {
        assert.deepEqual(Object.keys(nlsZh).sort(), Object.keys(nls).sort());
        for (const [key, value] of Object.entries(nlsZh)) {
            assert.ok(value.trim(), key);
            assert.notEqual(value, nls[key].length > 8 ? nls[key] : '', `${key} is not translated`);
        }
    });

    it('translates every runtime string, keeping its placeholders', () => {
        const strings = runtimeStrings();
        assert.ok(strings.length > 20, strings.join('\n'));
        assert.deepEqual(strings.filter((s) => !(s in bundleZh)), []);
        assert.deepEqual(Object.keys(bundleZh).filter((s) => !strings.includes(s)), [], 'unused strings in the zh-cn bundle');
        for (const s of strings) {
            assert.equal(placeholders(bundleZh[s]), placeholders(s), s);
        }
    });
});
