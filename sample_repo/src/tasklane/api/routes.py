"""Maps (method, path) to handlers and runs the stdlib HTTP server."""

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tasklane.api.schemas import BadRequest, NewTask
from tasklane.auth.tokens import verify_token
from tasklane.storage.db import connect
from tasklane.storage.queue import enqueue, lease


def make_handler(db_path: Path) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _reply(self, status: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            token = self.headers.get("Authorization", "").removeprefix("Bearer ")
            if verify_token(token) is None:
                return self._reply(401, {"error": "unauthorized"})
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            with connect(db_path) as conn:
                if self.path == "/tasks":
                    try:
                        task_id = enqueue(conn, NewTask.from_json(body))
                    except BadRequest as exc:
                        return self._reply(400, {"error": str(exc)})
                    return self._reply(201, {"id": task_id})
                if self.path == "/tasks/lease":
                    return self._reply(200, {"task": lease(conn, body.get("queue", "default"))})
            return self._reply(404, {"error": "not found"})

    return Handler


def serve(db_path: Path, port: int = 8080) -> None:
    ThreadingHTTPServer(("127.0.0.1", port), make_handler(db_path)).serve_forever()
