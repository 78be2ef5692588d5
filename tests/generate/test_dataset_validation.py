"""Malformed dataset files: one line naming the file, line and field, before any request.

Every case of issue 10 point 5 goes through the loader and through the CLI as a user runs
it (``closurebench show`` and ``closurebench eval`` against a real loopback server that
counts requests: a bad dataset must stop before the first one).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.errors import ConfigError, DatasetFileError
from closurebench.generate.io import load_instances, read_manifest, write_jsonl
from closurebench.schema import parse_instance

DATA = Path(__file__).resolve().parents[1] / "data"


def _records(name: str) -> list[dict[str, Any]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


CLOSURE = _records("closure-v0.1.0.jsonl")
GRIT = _records("grit-v0.1.0.jsonl")


def _edit(rec: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = dict(rec)
    for key, value in changes.items():
        if value is _DROP:
            del out[key]
        else:
            out[key] = value
    return out


_DROP = object()


def _lines(*recs: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in recs)


def _non_utf8() -> bytes:
    good = json.dumps(CLOSURE[0]).encode() + b"\n"
    second = json.dumps(CLOSURE[1]).encode()
    cut = second.index(b'"question"') + 15
    return good + second[:cut] + b"\xe9" + second[cut:] + b"\n"


# name -> (file bytes, the line number and the texts the one-line message must hold)
CASES: dict[str, tuple[bytes, int, tuple[str, ...]]] = {
    "missing_id": (
        _lines(CLOSURE[0], _edit(CLOSURE[1], id=_DROP)),
        2,
        ("field 'id' is missing",),
    ),
    "missing_answer": (
        _lines(_edit(CLOSURE[0], answer=_DROP)),
        1,
        ("field 'answer' is missing",),
    ),
    "null_answer": (
        _lines(CLOSURE[0], CLOSURE[1], _edit(CLOSURE[2], answer=None)),
        3,
        ("field 'answer'", "null is not allowed"),
    ),
    "null_answer_ids": (
        _lines(_edit(CLOSURE[0], answer_ids=None)),
        1,
        ("field 'answer_ids'", "null is not allowed"),
    ),
    "grit_null_answer": (
        _lines(GRIT[0], _edit(GRIT[1], answer=None)),
        2,
        ("field 'answer'", "null is not allowed"),
    ),
    "banana_result_type": (
        _lines(_edit(CLOSURE[0], result_type="banana")),
        1,
        ("field 'result_type'", "'banana'"),
    ),
    "duplicate_ids": (
        _lines(CLOSURE[0], CLOSURE[1], CLOSURE[0]),
        3,
        ("field 'id'", "already the id of line 1"),
    ),
    "non_utf8": (_non_utf8(), 2, ("not UTF-8", "byte 0xe9", "byte offset")),
    "numeric_question": (
        _lines(_edit(CLOSURE[0], question=12345)),
        1,
        ("field 'question'", "valid string"),
    ),
    "string_number": (
        _lines(_edit(CLOSURE[0], n=str(CLOSURE[0]["n"]))),
        1,
        ("field 'n'", "valid integer"),
    ),
}


@pytest.fixture(params=sorted(CASES))
def bad_file(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, int, tuple[str, ...]]:
    data, lineno, needles = CASES[request.param]
    path = tmp_path / f"{request.param}.jsonl"
    path.write_bytes(data)
    return path, lineno, needles


def _check_one_line(text: str, path: Path, lineno: int, needles: tuple[str, ...]) -> None:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    assert f"{path}:{lineno}:" in lines[0], text
    for needle in needles:
        assert needle in lines[0], (needle, text)
    assert "Traceback" not in text


def test_loader_names_file_line_and_field(bad_file: tuple[Path, int, tuple[str, ...]]) -> None:
    path, lineno, needles = bad_file
    with pytest.raises(DatasetFileError) as info:
        load_instances(path)
    _check_one_line(str(info.value), path, lineno, needles)


def test_show_prints_one_line(bad_file: tuple[Path, int, tuple[str, ...]]) -> None:
    path, lineno, needles = bad_file
    # The index past the bad line: show reads up to it, so the bad line is always reached.
    res = CliRunner().invoke(app, ["show", str(path), "--index", "5"])
    assert res.exit_code == 1
    _check_one_line(res.output.removeprefix("error: "), path, lineno, needles)


@pytest.fixture
def counting_server() -> Iterator[tuple[str, Callable[[], int]]]:
    """A loopback HTTP server answering 500 to everything; counts the requests it got."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            hits.append(self.path)
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = _any

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", lambda: len(hits)
    finally:
        server.shutdown()
        server.server_close()


def test_eval_stops_before_any_request(
    bad_file: tuple[Path, int, tuple[str, ...]],
    counting_server: tuple[str, Callable[[], int]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, lineno, needles = bad_file
    base_url, requests = counting_server
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    out = tmp_path / "run"
    res = CliRunner().invoke(
        app,
        ["eval", str(path), "--model", "m", "--base-url", base_url, "--out", str(out),
         "--retries", "0", "--no-progress"],
    )  # fmt: skip
    assert res.exit_code != 0
    assert requests() == 0
    assert not (out / "results.jsonl").exists()
    _check_one_line(res.output.removeprefix("error: "), path, lineno, needles)


def test_good_files_load_and_nullable_fields_stay_nullable(tmp_path: Path) -> None:
    # GRIT ``solution`` and ClosureBench ``alt_answer`` may be null (spec); answers not.
    grit = parse_instance(_edit(GRIT[0], solution=None))
    closure = parse_instance(_edit(CLOSURE[0], alt_answer=None))
    assert grit.solution is None and closure.alt_answer is None  # type: ignore[union-attr]
    path = tmp_path / "ok.jsonl"
    path.write_bytes(_lines(*CLOSURE, *GRIT))
    assert [r.id for r in load_instances(path)] == [r["id"] for r in CLOSURE + GRIT]


def test_a_suite_can_be_required(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(_lines(*CLOSURE, *GRIT))
    only = tmp_path / "closure.jsonl"
    only.write_bytes(_lines(*CLOSURE))
    assert [r.id for r in load_instances(only, suite="closure")] == [r["id"] for r in CLOSURE]
    with pytest.raises(DatasetFileError, match=r"a grit record where closure records are expe"):
        load_instances(path, suite="closure")
    with pytest.raises(ConfigError, match="suite 'closur' is not"):
        load_instances(only, suite="closur")  # type: ignore[call-overload]


def test_a_utf8_bom_is_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + _lines(CLOSURE[0]))
    assert load_instances(path)[0].id == CLOSURE[0]["id"]


def test_each_split_has_its_own_manifest(tmp_path: Path) -> None:
    recs = [parse_instance(r) for r in CLOSURE]
    grit = [parse_instance(r) for r in GRIT]
    a, man_a = write_jsonl(tmp_path, "closure-heldout.jsonl", recs, lambda s, n: {"files": {n: s}})
    b, man_b = write_jsonl(tmp_path, "grit-test.jsonl", grit, lambda s, n: {"files": {n: s}})
    assert (man_a.name, man_b.name) == ("closure-heldout.manifest.json", "grit-test.manifest.json")
    assert list(read_manifest(a)["files"]) == ["closure-heldout.jsonl"]
    assert list(read_manifest(b)["files"]) == ["grit-test.jsonl"]
    assert not (tmp_path / "manifest.json").exists()


def test_an_old_folders_manifest_json_is_still_read(tmp_path: Path) -> None:
    data = tmp_path / "closure-heldout.jsonl"
    data.write_bytes(_lines(*CLOSURE))
    (tmp_path / "manifest.json").write_text(
        json.dumps({"files": {"closure-heldout.jsonl": {"sha256": "x"}}}), encoding="utf-8"
    )
    assert read_manifest(data)["files"]["closure-heldout.jsonl"]["sha256"] == "x"
    other = tmp_path / "closure-train.jsonl"
    other.write_bytes(_lines(*CLOSURE))
    with pytest.raises(DatasetFileError, match="no manifest for"):
        read_manifest(other)  # manifest.json describes another file
