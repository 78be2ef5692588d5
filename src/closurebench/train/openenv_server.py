"""An OpenEnv-compatible HTTP environment server (``closurebench serve-env``).

Remote RL stacks train on closurebench over HTTP, without importing it: the server holds
the episodes (:class:`~closurebench.train.rlenv.TextEpisode`), runs the graph tool on the
model's ``<graph>`` calls and scores finished episodes with closurebench's own gated
reward. It speaks OpenEnv's simulation-mode HTTP protocol (the request and response
shapes of ``openenv.core.env_server``: ``{"observation": {...}, "reward": r, "done": d}``),
built on the standard library and pydantic only, so it needs no extra.

Endpoints (JSON in, JSON out):

================  ==========================================================================
``POST /reset``   ``{"seed"?, "index"?, "task"?, "mode"?, "episode_id"?}`` → a new episode:
                  ``observation.messages`` (the prompt: the mode's system and user turns),
                  ``observation.episode_id``, ``observation.metadata`` (record id, task, n,
                  limits). ``index`` picks item ``index`` of the dataset; else ``seed``
                  picks one from it deterministically; else items are dealt in turn.
``POST /step``    ``{"episode_id", "action": {"message": TURN}}`` → after a ``<graph>``
                  call: ``observation.text`` is ``<result>…</result>`` and ``done`` false;
                  at an answer (any turn that is no tool call), in a single-turn mode, or
                  at a limit: ``done`` true, ``reward`` the gated reward and
                  ``observation.metadata.breakdown`` its parts (valid, correct, s_inv,
                  outcome, reason, end).
``GET /state``    ``?episode_id=ID``: that episode (turn count, calls, budget, reward);
                  without it, the server (configuration, episodes held).
``GET /health``   ``{"status": "healthy"}``.
``GET /schema``   JSON schemas of the action, observation and state.
``GET /metadata`` name, description, version.
================  ==========================================================================

Validation: every body is parsed by a strict pydantic model (:class:`ResetRequest`,
:class:`StepRequest`; unknown fields, wrong types, out-of-range numbers refused), bodies
are at most :data:`MAX_BODY_BYTES`, a turn at most the episode's ``max_turn_chars``. Bad
input gets a 4xx and ``{"detail": "...", "errors": [...]}`` naming the field: 400 bad
JSON (whatever the ``Content-Type``, the body must be a JSON object), 404 unknown path or
episode, 405 wrong method, 409 an ended episode or a taken episode id, 411 no
``Content-Length``, 413 too large, 422 invalid fields.
Only a bug gives a 500.

Episodes live in memory, keyed by id, at most ``max_episodes`` of them (the oldest is
dropped first) and none older than ``max_age_s`` seconds (a step on a dropped one is a
404). Each has the agent mode's limits (:class:`~closurebench.train.rlenv.EpisodeLimits`).

Trust: the graph tool runs in-process because it is closurebench's own code on parsed
JSON with its own size and time limits (:class:`~closurebench.tools.ToolLimits`); no
model-written program is ever run: program modes are not offered
(:func:`~closurebench.train.rlenv.check_mode`). The server binds ``127.0.0.1`` by
default; it has no authentication, so bind another address only behind your own proxy.

Example:
    >>> import json, threading, urllib.request
    >>> env = EnvServer(TaskSource("grit", split="train", size=8, task="bfs"))
    >>> srv = make_http_server(env, port=0)
    >>> thread = threading.Thread(target=srv.serve_forever, daemon=True); thread.start()
    >>> url = f"http://127.0.0.1:{srv.server_address[1]}"
    >>> req = urllib.request.Request(url + "/reset", data=b'{"index": 0}', method="POST")
    >>> obs = json.load(urllib.request.urlopen(req))["observation"]
    >>> [m["role"] for m in obs["messages"]], obs["done"]
    (['system', 'user'], False)
    >>> srv.shutdown(); srv.server_close()
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from closurebench.errors import ClosureBenchError, ConfigError
from closurebench.seeding import derive_seed
from closurebench.train.rlenv import (
    SERVED_MODES,
    EpisodeLimits,
    RewardSettings,
    TaskSource,
    TextEpisode,
    check_mode,
)

__all__ = [
    "DEFAULT_HOST",
    "MAX_BODY_BYTES",
    "EnvServer",
    "HttpError",
    "ResetRequest",
    "StepAction",
    "StepRequest",
    "make_http_server",
    "serve",
]

#: The default address: loopback only.
DEFAULT_HOST = "127.0.0.1"
#: Largest request body accepted.
MAX_BODY_BYTES = 1 << 20
#: An oversize body up to this size is read and dropped before the 413 is sent (so the
#: client sees the reply, not a broken pipe); a larger one is not read at all.
DRAIN_MAX_BYTES = 8 * MAX_BODY_BYTES
#: Characters of a turn any episode accepts, whatever its limits (the model's own cap).
MAX_MESSAGE_CHARS = 500_000
#: Seconds a client may take to send its request.
SOCKET_TIMEOUT_S = 30.0

_ID = r"^[A-Za-z0-9_.-]{1,64}$"
_TASK = r"^[A-Za-z0-9_:-]{1,64}$"
_MAX_SEED = 2**63 - 1


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ResetRequest(_Strict):
    """``POST /reset``: which item, mode and id the new episode gets (all optional).

    Attributes:
        seed: Picks the item deterministically (OpenEnv's reset seed).
        index: The item's index in the dataset (wins over ``seed``).
        task: One GRIT task or ClosureBench category (None: the server's).
        mode: ``direct``, ``cot`` or ``agent`` (None: the server's).
        episode_id: The id to give the episode (None: a fresh one).
    """

    seed: int | None = Field(None, ge=0, le=_MAX_SEED)
    index: int | None = Field(None, ge=0)
    task: str | None = Field(None, pattern=_TASK)
    mode: Literal["direct", "cot", "agent"] | None = None
    episode_id: str | None = Field(None, pattern=_ID)


class StepAction(_Strict):
    """The action: the model's turn, as text.

    Attributes:
        message: The model's reply (a ``<graph>`` call, a final ``<answer>``, ...).
        metadata: Anything the client wants echoed back in the observation (OpenEnv's
            ``Action.metadata``; at most 16 keys).
    """

    message: str = Field(max_length=MAX_MESSAGE_CHARS)
    metadata: dict[str, Any] = Field(default_factory=dict, max_length=16)


class StepRequest(_Strict):
    """``POST /step``: the episode and the action.

    Attributes:
        episode_id: The id ``/reset`` gave.
        action: The :class:`StepAction`.
        timeout_s: OpenEnv's per-step timeout; accepted and ignored (the tool has its own).
        request_id: OpenEnv's request id; echoed in the observation's metadata.
    """

    episode_id: str = Field(pattern=_ID)
    action: StepAction
    timeout_s: float | None = Field(None, gt=0)
    request_id: str | None = Field(None, max_length=255)


class HttpError(Exception):
    """A request the server refuses: an HTTP status, a message and the field errors."""

    def __init__(self, status: int, detail: str, errors: list[dict[str, Any]] | None = None):
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = errors or []


def _validation_errors(exc: ValidationError) -> tuple[str, list[dict[str, Any]]]:
    """A one-line message and the field list of a pydantic error (no input echoed)."""
    errors = [
        {"loc": ".".join(str(p) for p in e["loc"]) or "body", "msg": e["msg"], "type": e["type"]}
        for e in exc.errors(include_url=False, include_input=False)
    ]
    lines = "; ".join(f"{e['loc']}: {e['msg']}" for e in errors[:8])
    return f"invalid request: {lines}", errors


class _Held:
    """One held episode: the episode, its lock and when it was made."""

    def __init__(self, episode: TextEpisode, task: str | None, index: int, born: float) -> None:
        self.episode = episode
        self.task = task
        self.index = index
        self.born = born
        self.lock = threading.Lock()


class EnvServer:
    """The environment behind the HTTP endpoints (usable without HTTP, as the tests do).

    Args:
        source: Where the records come from.
        mode: The default mode of an episode (one of :data:`SERVED_MODES`).
        limits: Each agent episode's limits.
        rewards: How episodes are rewarded.
        max_episodes: Episodes held at once (the oldest is dropped first).
        max_age_s: Seconds an episode is held.
        clock: Monotonic seconds (for the age; tests pass their own).

    Raises:
        ConfigError: a mode that is not offered, or a bound below 1.
    """

    name = "closurebench"

    def __init__(
        self,
        source: TaskSource,
        *,
        mode: str = "agent",
        limits: EpisodeLimits | None = None,
        rewards: RewardSettings | None = None,
        max_episodes: int = 256,
        max_age_s: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.mode = check_mode(mode)
        self.limits = limits or EpisodeLimits()
        self.rewards = rewards or RewardSettings()
        if max_episodes < 1 or not max_age_s > 0:
            raise ConfigError(
                f"max_episodes={max_episodes} and max_age_s={max_age_s} must be positive"
            )
        self.max_episodes = int(max_episodes)
        self.max_age_s = float(max_age_s)
        self.clock = clock
        self._episodes: OrderedDict[str, _Held] = OrderedDict()
        self._lock = threading.Lock()
        self._data_lock = threading.Lock()
        self._dealt = 0
        self._rewards = {m: self.rewards.reward(m) for m in SERVED_MODES}

    # ------------------------------------------------------------------ episodes

    def _evict(self) -> None:
        """Drop episodes past their age, then the oldest beyond the bound (lock held)."""
        now = self.clock()
        for key in [k for k, h in self._episodes.items() if now - h.born > self.max_age_s]:
            del self._episodes[key]
        while len(self._episodes) >= self.max_episodes:
            self._episodes.popitem(last=False)

    def _get(self, episode_id: str) -> _Held:
        with self._lock:
            held = self._episodes.get(episode_id)
            if held is not None and self.clock() - held.born > self.max_age_s:
                del self._episodes[episode_id]
                held = None
        if held is None:
            raise HttpError(
                404,
                f"no episode {episode_id!r}: it was never made, or it ended more than "
                f"{self.max_age_s:g} s ago or was dropped (at most {self.max_episodes} are "
                "held); POST /reset to start one",
            )
        return held

    def _pick(self, req: ResetRequest) -> int:
        size = self.source.size
        if req.index is not None:
            if req.index >= size:
                raise HttpError(
                    422, f"invalid request: index: {req.index} is past the dataset (size {size})"
                )
            return req.index
        if req.seed is not None:
            return derive_seed(self.source.seed, "reset", req.seed) % size
        with self._lock:
            index = self._dealt % size
            self._dealt += 1
        return index

    def reset(self, req: ResetRequest) -> dict[str, Any]:
        """Start an episode; the OpenEnv reset response."""
        mode = req.mode or self.mode
        index = self._pick(req)
        try:
            with self._data_lock:  # the datasets cache their graphs
                record = self.source.record(index, req.task)
        except ClosureBenchError as exc:
            raise HttpError(422, f"invalid request: task: {str(exc).splitlines()[0]}") from None
        episode = TextEpisode(record, mode, self.limits, self.rewards, self._rewards[mode])
        with self._lock:
            key = req.episode_id or uuid.uuid4().hex
            if key in self._episodes:
                raise HttpError(409, f"episode id {key!r} is taken; pick another or omit it")
            self._evict()
            self._episodes[key] = _Held(episode, req.task, index, self.clock())
        return {
            "observation": {
                "episode_id": key,
                "messages": episode.prompt,
                "text": "",
                "done": False,
                "reward": None,
                "metadata": self._metadata(episode, req.task, index),
            },
            "reward": None,
            "done": False,
        }

    def _metadata(self, ep: TextEpisode, task: str | None, index: int) -> dict[str, Any]:
        rec = ep.record
        return {
            "record_id": rec.id,
            "suite": str(rec.suite),
            "task": getattr(rec, "task", None) or getattr(rec, "category", None) or task,
            "n": rec.n,
            "index": index,
            "mode": ep.mode,
            "limits": ep.limits.to_json(),
            "stop": ["</graph>", "</answer>"] if ep.mode == "agent" else [],
        }

    def step(self, req: StepRequest) -> dict[str, Any]:
        """Take one model turn; the OpenEnv step response."""
        held = self._get(req.episode_id)
        with held.lock:
            ep = held.episode
            if ep.done:
                raise HttpError(
                    409, f"episode {req.episode_id!r} has ended ({ep.end}); POST /reset"
                )
            text = req.action.message
            if len(text) > ep.limits.max_turn_chars:
                raise HttpError(
                    413,
                    f"action.message is {len(text):,} characters; this server takes at most "
                    f"{ep.limits.max_turn_chars:,} per turn",
                )
            out = ep.step(text)
        meta: dict[str, Any] = {
            "step_count": ep.rounds,
            "kind": out.kind,
            "action_metadata": req.action.metadata,
        }
        if req.request_id is not None:
            meta["request_id"] = req.request_id
        if out.breakdown is not None:
            meta["breakdown"] = out.breakdown
        observation = {
            "episode_id": req.episode_id,
            "messages": [{"role": "user", "content": out.text}] if out.text else [],
            "text": out.text,
            "done": out.done,
            "reward": out.reward,
            "metadata": meta,
        }
        return {"observation": observation, "reward": out.reward, "done": out.done}

    def state(self, episode_id: str | None) -> dict[str, Any]:
        """``GET /state``: one episode's state, or the server's."""
        if episode_id is None:
            with self._lock:
                held = len(self._episodes)
            return {
                "episode_id": None,
                "step_count": 0,
                "suite": self.source.suite,
                "split": self.source.split,
                "seed": self.source.seed,
                "size": self.source.size,
                "task": self.source.task,
                "mode": self.mode,
                "modes": list(SERVED_MODES),
                "limits": self.limits.to_json(),
                "episodes": held,
                "max_episodes": self.max_episodes,
                "max_age_s": self.max_age_s,
            }
        held_ep = self._get(episode_id)
        with held_ep.lock:
            return {"episode_id": episode_id, **held_ep.episode.state()}

    def schema(self) -> dict[str, Any]:
        """``GET /schema``: the action, observation and state schemas (OpenEnv's shape)."""
        return {
            "action": StepAction.model_json_schema(),
            "observation": {
                "type": "object",
                "properties": {
                    "episode_id": {"type": "string"},
                    "messages": {"type": "array", "items": {"type": "object"}},
                    "text": {"type": "string"},
                    "done": {"type": "boolean"},
                    "reward": {"type": ["number", "null"]},
                    "metadata": {"type": "object"},
                },
            },
            "state": {
                "type": "object",
                "properties": {
                    "episode_id": {"type": ["string", "null"]},
                    "step_count": {"type": "integer"},
                },
            },
            "reset": ResetRequest.model_json_schema(),
            "step": StepRequest.model_json_schema(),
        }

    def metadata(self) -> dict[str, Any]:
        """``GET /metadata``."""
        from closurebench import __version__

        return {
            "name": self.name,
            "description": "ClosureBench / GRIT graph reasoning: the GRAIN <graph> tool "
            "protocol and closurebench's gated reward",
            "version": __version__,
            "suite": self.source.suite,
            "modes": list(SERVED_MODES),
        }

    # ------------------------------------------------------------------ requests

    def handle(self, method: str, target: str, body: bytes | None) -> tuple[int, dict[str, Any]]:
        """Answer one request: ``(status, JSON body)``; bad input is a 4xx, never a raise."""
        parts = urlsplit(target)
        path = parts.path.rstrip("/") or "/"
        routes: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
            "/reset": ("POST", lambda: self.reset(_parse(ResetRequest, body, allow_empty=True))),
            "/step": ("POST", lambda: self.step(_parse(StepRequest, body))),
            "/state": ("GET", lambda: self.state(_query_id(parts.query))),
            "/health": ("GET", lambda: {"status": "healthy"}),
            "/schema": ("GET", self.schema),
            "/metadata": ("GET", self.metadata),
        }
        try:
            if path not in routes:
                raise HttpError(404, f"no endpoint {path}; endpoints: {', '.join(routes)}")
            want, run = routes[path]
            if method != want:
                raise HttpError(405, f"{path} takes {want}, not {method}")
            return 200, run()
        except HttpError as exc:
            return exc.status, {"detail": exc.detail, "errors": exc.errors}


def _parse(model: type[_Strict], body: bytes | None, *, allow_empty: bool = False) -> Any:
    """``body`` validated as ``model``; an :class:`HttpError` for bad input."""
    if not body or not body.strip():
        if allow_empty:
            return model()
        raise HttpError(422, "invalid request: the body is empty; send a JSON object")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise HttpError(400, f"the body is not JSON ({str(exc)[:200]})") from None
    if not isinstance(data, dict):
        raise HttpError(
            422, f"invalid request: the body is a JSON {type(data).__name__}, not an object"
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        detail, errors = _validation_errors(exc)
        raise HttpError(422, detail, errors) from None


def _query_id(query: str) -> str | None:
    values = parse_qs(query, keep_blank_values=True)
    unknown = sorted(set(values) - {"episode_id"})
    if unknown:
        raise HttpError(422, f"invalid request: unknown query parameters {unknown}; use episode_id")
    ids = values.get("episode_id")
    if not ids:
        return None
    if len(ids) > 1:
        raise HttpError(422, "invalid request: give one episode_id")
    return ids[0]


class _Handler(BaseHTTPRequestHandler):
    """The HTTP side: read the body within its limits, answer JSON."""

    server: _Server
    server_version = "closurebench-env"
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT_S

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.log is not None:
            self.server.log(f"{self.address_string()} {format % args}")

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes | None:
        length = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding"):
            raise HttpError(411, "send the body with a Content-Length (no chunked encoding)")
        if length is None:
            return None
        try:
            n = int(length)
        except ValueError:
            raise HttpError(400, f"Content-Length {length[:40]!r} is not a number") from None
        if n < 0:
            raise HttpError(400, "Content-Length is negative")
        if n > MAX_BODY_BYTES:
            if n <= DRAIN_MAX_BYTES:  # read and drop it, so the client can read the 413
                left = n
                while left > 0:
                    chunk = self.rfile.read(min(left, 1 << 16))
                    if not chunk:
                        break
                    left -= len(chunk)
            raise HttpError(413, f"the body is {n:,} bytes; at most {MAX_BODY_BYTES:,}")
        body = self.rfile.read(n)
        return body

    def _serve(self, method: str) -> None:
        try:
            body = self._body() if method == "POST" else None
            if (
                method == "POST"
                and body is None
                and self.path.split("?")[0].rstrip("/") != "/reset"
            ):
                raise HttpError(411, "send the body with a Content-Length")
            status, payload = self.server.env.handle(method, self.path, body)
        except HttpError as exc:
            self.close_connection = True
            status, payload = exc.status, {"detail": exc.detail, "errors": exc.errors}
        except Exception as exc:  # a bug: say so, keep serving
            self.close_connection = True
            status = 500
            payload = {"detail": f"internal error ({type(exc).__name__}); please report it"}
            if self.server.log is not None:
                self.server.log(f"internal error on {method} {self.path}: {exc!r}")
        self._send(status, payload)

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def do_PATCH(self) -> None:
        self._serve("PATCH")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self, address: tuple[str, int], env: EnvServer, log: Callable[[str], None] | None
    ) -> None:
        self.env = env
        self.log = log
        super().__init__(address, _Handler)


def make_http_server(
    env: EnvServer,
    host: str = DEFAULT_HOST,
    port: int = 0,
    *,
    log: Callable[[str], None] | None = None,
) -> ThreadingHTTPServer:
    """An HTTP server for ``env`` bound to ``host:port`` (port 0: a free one); not started.

    Call ``serve_forever()`` (in a thread, for tests) and ``shutdown()``; the bound port
    is ``server.server_address[1]``.

    Raises:
        OSError: the address cannot be bound.
    """
    return _Server((host, int(port)), env, log)


def serve(
    env: EnvServer,
    host: str = DEFAULT_HOST,
    port: int = 8000,
    *,
    log: Callable[[str], None] | None = None,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve ``env`` until interrupted (Ctrl-C stops it cleanly)."""
    server = make_http_server(env, host, port, log=log)
    try:
        if ready is not None:
            ready(f"http://{host}:{server.server_address[1]}")
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
