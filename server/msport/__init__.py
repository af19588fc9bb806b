"""msport: a MindSpore porting assistant (language server and command line)."""

__version__ = "0.1.0"
