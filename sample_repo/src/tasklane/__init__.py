"""tasklane: a tiny task-queue HTTP API."""

__version__ = "0.4.2"

__all__ = ["__version__"]
