// ESLint 9 flat config: recommended + typed rules for the extension's TypeScript.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
    { ignores: ['out/**', 'node_modules/**', 'bundled/**'] },
    js.configs.recommended,
    ...tseslint.configs.recommendedTypeChecked,
    {
        languageOptions: {
            parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
        },
        rules: {
            '@typescript-eslint/no-floating-promises': 'error',
            '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
            eqeqeq: 'error',
            curly: 'error',
            'no-console': 'error',
        },
    },
    {
        // node:test's describe/it return promises that the runner itself awaits.
        files: ['src/test/**/*.ts'],
        rules: { '@typescript-eslint/no-floating-promises': 'off' },
    },
);
