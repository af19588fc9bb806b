"""msport's analysis core: pure functions of (text, settings, knowledge) -> findings.

Nothing here knows about LSP, files on disk or the terminal.
"""

from .engine import AnalysisResult, Analyzer, analyze
from .findings import Category, Edit, Finding, Fix, Related, Safety, Severity, Span
from .settings import Settings

__all__ = [
    "AnalysisResult", "Analyzer", "analyze", "Category", "Edit", "Finding", "Fix", "Related",
    "Safety", "Severity", "Settings", "Span",
]
