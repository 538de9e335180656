"""Validated request bodies; handlers never see raw JSON."""

from dataclasses import dataclass
from typing import Any

MAX_PAYLOAD_BYTES = 64 * 1024


class BadRequest(ValueError):
    """The client sent something we refuse; becomes a 400."""


@dataclass(frozen=True)
class NewTask:
    queue: str
    payload: str
    priority: int = 0

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> "NewTask":
        queue = body.get("queue")
        payload = body.get("payload")
        if not isinstance(queue, str) or not queue:
            raise BadRequest("queue must be a non-empty string")
        if not isinstance(payload, str):
            raise BadRequest("payload must be a string")
        if len(payload.encode()) > MAX_PAYLOAD_BYTES:
            raise BadRequest("payload too large")
        priority = body.get("priority", 0)
        if not isinstance(priority, int):
            raise BadRequest("priority must be an integer")
        return cls(queue=queue, payload=payload, priority=priority)
