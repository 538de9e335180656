"""Validation of a ContextRequest, once, for every provider: a request becomes a :class:`Turn`.

Malformed requests are kernel or adapter bugs: they get ``invalid_request``
and are never retried. A working directory that is well-formed but gone is a
source problem (``source_unavailable``), retryable. Providers receive only
checked turns (see :func:`providers.core.provider.contribute`), so none of
them checks again.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from providers.core.deadline import NEVER, Deadline
from providers.core.errors import invalid_request, source_unavailable
from providers.core.types import ContextRequest


@dataclass(frozen=True)
class Turn:
    """A checked request: an existing absolute working directory, a model id, budget >= 0."""

    request: ContextRequest
    working_directory: Path
    model_id: str
    deadline: Deadline = field(default=NEVER, compare=False)
    """When to stop taking on work and answer with what is done (see ``core.deadline``)."""

    @property
    def token_budget(self) -> int:
        return self.request.token_budget

    @property
    def files_touched(self) -> tuple[str, ...]:
        return self.request.files_touched

    @property
    def session_id(self) -> str:
        return self.request.session_id


def check_request(request: ContextRequest, deadline: Deadline = NEVER) -> Turn:
    """``request`` as a :class:`Turn`, or the classified error that says what is wrong."""
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
    try:
        st = os.stat(path)
    except PermissionError:
        raise source_unavailable(
            f"working directory {request.working_directory} cannot be reached: permission "
            "denied on it or a directory above it"
        ) from None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise invalid_request(
                f"working_directory is too long a path ({len(request.working_directory)} chars)"
            ) from None
        raise source_unavailable(
            f"working directory {request.working_directory} does not exist"
        ) from None
    if not stat.S_ISDIR(st.st_mode):
        raise source_unavailable(
            f"working directory {request.working_directory} is not a directory"
        )
    return Turn(request, path, request.model_target.id, deadline)
