// Run by `vsce package` (vscode:prepublish) after compiling: a .vsix without the msport server
// would install, start, and fail on every machine, so packaging stops here instead.
const fs = require('fs');
const path = require('path');

const libs = path.join(__dirname, '..', 'bundled', 'libs');
const needed = ['msport', 'pygls', 'lsprotocol'].filter((name) => !fs.existsSync(path.join(libs, name)));
if (needed.length > 0) {
    console.error(
        `msport: not packaging: the server is not bundled (${needed.join(', ')} missing from bundled/libs).\n` +
            '  Run "npm run package", which bundles it first, or bundle it yourself with\n' +
            '  "bash scripts/bundle-server.sh [PYTHON]" (any Python 3.9+ with pip), then package again.',
    );
    process.exit(1);
}
