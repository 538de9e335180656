"""Command line entry point: `tasklane init-db` and `tasklane serve`."""

import argparse
from pathlib import Path

from tasklane.api.routes import serve
from tasklane.storage.db import connect, create_schema


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tasklane")
    sub = parser.add_subparsers(dest="command", required=True)
    init = sub.add_parser("init-db", help="create the SQLite schema")
    init.add_argument("--path", type=Path, default=Path("tasklane.db"))
    run = sub.add_parser("serve", help="serve the HTTP API")
    run.add_argument("--path", type=Path, default=Path("tasklane.db"))
    run.add_argument("--port", type=int, default=8080)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "init-db":
        with connect(args.path) as conn:
            create_schema(conn)
        return 0
    serve(args.path, port=args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
