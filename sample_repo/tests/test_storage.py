import sqlite3

from tasklane.api.schemas import NewTask
from tasklane.storage.queue import complete, enqueue, lease


def test_lease_takes_highest_priority_first(conn: sqlite3.Connection) -> None:
    enqueue(conn, NewTask(queue="mail", payload="low"))
    enqueue(conn, NewTask(queue="mail", payload="high", priority=5))
    leased = lease(conn, "mail")
    assert leased is not None
    assert leased["payload"] == "high"


def test_leased_task_is_not_leased_twice(conn: sqlite3.Connection) -> None:
    enqueue(conn, NewTask(queue="mail", payload="only"))
    assert lease(conn, "mail") is not None
    assert lease(conn, "mail") is None


def test_complete_only_finishes_leased_tasks(conn: sqlite3.Connection) -> None:
    task_id = enqueue(conn, NewTask(queue="mail", payload="x"))
    assert complete(conn, task_id) is False
    lease(conn, "mail")
    assert complete(conn, task_id) is True
