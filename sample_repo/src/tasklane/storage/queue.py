"""Queue operations; each runs inside the caller's transaction."""

import sqlite3
from typing import Any

from tasklane.api.schemas import NewTask


def enqueue(conn: sqlite3.Connection, task: NewTask) -> int:
    cur = conn.execute(
        "INSERT INTO tasks (queue, payload, priority) VALUES (?, ?, ?)",
        (task.queue, task.payload, task.priority),
    )
    return int(cur.lastrowid or 0)


def lease(conn: sqlite3.Connection, queue: str) -> dict[str, Any] | None:
    """Take the highest-priority ready task, oldest first."""
    row = conn.execute(
        "SELECT id, payload FROM tasks WHERE queue = ? AND state = 'ready' "
        "ORDER BY priority DESC, id LIMIT 1",
        (queue,),
    ).fetchone()
    if row is None:
        return None
    conn.execute("UPDATE tasks SET state = 'leased' WHERE id = ?", (row["id"],))
    return {"id": row["id"], "payload": row["payload"]}


def complete(conn: sqlite3.Connection, task_id: int) -> bool:
    cur = conn.execute(
        "UPDATE tasks SET state = 'done' WHERE id = ? AND state = 'leased'", (task_id,)
    )
    return cur.rowcount == 1
