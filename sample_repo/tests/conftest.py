import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from tasklane.storage.db import connect, create_schema


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    with connect(tmp_path / "test.db") as connection:
        create_schema(connection)
        yield connection
