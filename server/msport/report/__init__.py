"""The project migration report: a model built from scanned files (model.py) and its renderings."""
