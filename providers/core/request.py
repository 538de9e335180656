"""Validation of a ContextRequest, shared by every provider.

Malformed requests are kernel or adapter bugs: they get ``invalid_request``
and are never retried. A working directory that is well-formed but gone is a
source problem (``source_unavailable``), retryable.
"""

from __future__ import annotations

from pathlib import Path

from providers.core.errors import invalid_request, source_unavailable
from providers.core.types import ContextRequest


def checked_working_directory(request: ContextRequest) -> Path:
    """Validate ``request``; return its working directory as an existing absolute Path."""
    if request.token_budget < 0:
        raise invalid_request(f"token_budget must be >= 0 (got {request.token_budget})")
    if request.model_target is None or not request.model_target.id:
        raise invalid_request("model_target with a non-empty id is required")
    if not request.working_directory:
        raise invalid_request("working_directory is required")
    if "\x00" in request.working_directory:
        raise invalid_request("working_directory contains a NUL byte")
    path = Path(request.working_directory)
    if not path.is_absolute():
        raise invalid_request(
            f"working_directory must be absolute (got {request.working_directory!r})"
        )
    if not path.is_dir():
        raise source_unavailable(f"working directory {request.working_directory} does not exist")
    return path
