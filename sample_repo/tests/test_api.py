import pytest
from tasklane.api.schemas import MAX_PAYLOAD_BYTES, BadRequest, NewTask


def test_new_task_defaults_priority() -> None:
    task = NewTask.from_json({"queue": "mail", "payload": "hi"})
    assert task == NewTask(queue="mail", payload="hi", priority=0)


@pytest.mark.parametrize(
    "body",
    [
        {"payload": "hi"},
        {"queue": "", "payload": "hi"},
        {"queue": "mail", "payload": 3},
        {"queue": "mail", "payload": "hi", "priority": "high"},
        {"queue": "mail", "payload": "x" * (MAX_PAYLOAD_BYTES + 1)},
    ],
)
def test_bad_bodies_are_rejected(body: dict[str, object]) -> None:
    with pytest.raises(BadRequest):
        NewTask.from_json(body)
