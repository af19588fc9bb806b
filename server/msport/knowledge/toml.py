"""tomllib on Python 3.11+, tomli before."""

import sys

if sys.version_info >= (3, 11):
    import tomllib as toml
else:  # pragma: no cover - exercised on older Pythons only
    import tomli as toml

TOMLDecodeError = toml.TOMLDecodeError
loads = toml.loads
