import sqlite3
from pathlib import Path

from tasklane.cli import main


def test_init_db_creates_tasks_table(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    assert main(["init-db", "--path", str(db)]) == 0
    tables = sqlite3.connect(db).execute("SELECT name FROM sqlite_master").fetchall()
    assert ("tasks",) in tables
