"""A fake OpenAI-compatible chat server on 127.0.0.1, for tests over real HTTP.

It speaks ``POST /v1/chat/completions`` and ``GET /v1/models`` and follows a
script: each chat request takes the next scripted step (an answer, a malformed
body, a slow answer, or an error status); when the steps run out the ``default``
answers. Every request is recorded in :attr:`FakeOpenAIServer.requests`.

Example:
    >>> with FakeOpenAIServer() as fake:
    ...     _ = fake.script("first", Status(500), default=lambda req: Reply("echo"))
    ...     fake.base_url.startswith("http://127.0.0.1:")
    True

Clients that give up (a timeout aborts the connection) or close pooled keep-alive
connections with a reset are normal here: the server ends such a connection quietly
(``socketserver`` would print a traceback for each). A scripted step that raises is
answered with a 500 naming the error and recorded in :attr:`FakeOpenAIServer.errors`.

Steps:
    * ``"text"`` or :class:`Reply` - a normal completion (content, optional
      ``reasoning_content`` / ``reasoning``, usage, finish_reason).
    * :class:`Malformed` - status 200 with a body that is not a completion.
    * :class:`Slow` - sleep, then send another step (for client timeouts).
    * :class:`Status` - an HTTP error (500, 429 with ``Retry-After``, 401, 404, ...).
    * :class:`Die` - the server dies: this request gets no reply, open connections are
      reset and new ones refused (:meth:`FakeOpenAIServer.kill`), like a crashed vLLM.
    * a callable ``(request_json) -> step`` - computed per request.

Failure scenarios (issue 10's tests, ``test_eval_reliability.py``):
    * unknown model: ``FakeOpenAIServer(strict_models=True)`` answers 404 ("The model
      `x` does not exist.") for a model not in ``served_models``, like vLLM;
    * bad key: ``FakeOpenAIServer(api_key="k")`` answers 401 without ``Bearer k``;
    * a dead server: ``script(default=Status(500))`` fails every request;
    * a hostile wait: ``Status(429, retry_after=100000)`` (or 503) sends
      ``Retry-After: 100000``.

A strict server (issue 11): ``FakeOpenAIServer(reasoning_model=True)`` refuses
parameters like the OpenAI API does for its o-series models: a request with
``max_tokens`` gets HTTP 400 ``{"error": {"message": "Unsupported parameter: 'max_tokens'
is not supported with this model. Use 'max_completion_tokens' instead.", "type":
"invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}``, one
with a ``temperature`` other than 1 the matching ``unsupported_value`` error, one with
``stop`` (an agent mode's stop sequences) an ``unsupported_parameter`` error. A
:class:`Reply` with ``reasoning_tokens`` reports them in
``usage.completion_tokens_details``.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeAlias

__all__ = [
    "Die",
    "FakeOpenAIServer",
    "Malformed",
    "RecordedRequest",
    "Reply",
    "Slow",
    "Status",
    "Step",
    "fake_openai_server",
]


@dataclass(frozen=True)
class Reply:
    """A successful chat completion.

    Attributes:
        content: ``choices[0].message.content`` (None sends JSON null).
        reasoning_content: Sent as ``message.reasoning_content`` when set (vLLM, DeepSeek).
        reasoning: Sent as ``message.reasoning`` when set (newer vLLM, Ollama, OpenRouter).
        prompt_tokens: ``usage.prompt_tokens``; None omits ``usage`` altogether.
        completion_tokens: ``usage.completion_tokens``.
        finish_reason: ``choices[0].finish_reason``.
        reasoning_tokens: ``usage.completion_tokens_details.reasoning_tokens`` when set.
        tool_calls: ``message.tool_calls`` when set: ``(name, arguments text)`` pairs,
            sent with ids ``call_0``, ``call_1``, ...
    """

    content: str | None = "OK"
    reasoning_content: str | None = None
    reasoning: str | None = None
    prompt_tokens: int | None = 11
    completion_tokens: int | None = 7
    finish_reason: str = "stop"
    reasoning_tokens: int | None = None
    tool_calls: tuple[tuple[str, str], ...] | None = None


@dataclass(frozen=True)
class Malformed:
    """Status 200 with a body that is not a valid completion.

    Attributes:
        body: Raw body bytes (default: truncated JSON).
        content_type: The Content-Type header sent.
    """

    body: bytes = b'{"id": "x", "choices": [{"message": '
    content_type: str = "application/json"


@dataclass(frozen=True)
class Slow:
    """Sleep, then answer with ``then``.

    Attributes:
        seconds: How long to sleep before answering (cut short when the server stops).
        then: The step sent afterwards.
    """

    seconds: float
    then: Step = field(default_factory=Reply)


@dataclass(frozen=True)
class Status:
    """An HTTP error with an OpenAI-style error body.

    Attributes:
        code: The HTTP status code.
        message: ``error.message`` in the body (a default per code when None).
        retry_after: ``Retry-After`` header in seconds, when set (429 defaults to 1).
    """

    code: int
    message: str | None = None
    retry_after: float | None = None


@dataclass(frozen=True)
class Die:
    """The server dies on this request (see :meth:`FakeOpenAIServer.kill`)."""


Step: TypeAlias = "str | Reply | Malformed | Slow | Status | Die | Callable[[dict[str, Any]], Step]"

_DEFAULT_MESSAGES = {
    400: "bad request",
    401: "Incorrect API key provided.",
    403: "permission denied",
    404: "The model does not exist.",
    429: "Rate limit reached; slow down.",
    500: "internal server error",
    503: "service unavailable",
}


@dataclass
class RecordedRequest:
    """One request the server received.

    Attributes:
        method: ``"GET"`` or ``"POST"``.
        path: Request path, e.g. ``/v1/chat/completions``.
        headers: Request headers, names lower-cased.
        body: Parsed JSON body (None when absent or not JSON).
    """

    method: str
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The ``messages`` of a chat request ([] otherwise)."""
        return list((self.body or {}).get("messages", [])) if isinstance(self.body, dict) else []


class FakeOpenAIServer:
    """A scripted OpenAI-compatible server on an ephemeral loopback port.

    Attributes:
        requests: Every request received, in order (chat and models).
        served_models: Model ids of ``GET /v1/models``; when ``strict_models`` is
            True, chat requests for other models get a 404 like vLLM's.
        api_key: When set, requests without ``Authorization: Bearer <api_key>`` get 401.
        reasoning_model: Refuse ``max_tokens`` and a non-default ``temperature`` with
            the OpenAI API's 400 errors (see the module docstring).
    """

    def __init__(
        self,
        *,
        served_models: list[str] | None = None,
        strict_models: bool = False,
        api_key: str | None = None,
        reasoning_model: bool = False,
    ) -> None:
        """Create the server (not started yet; use ``start()`` or ``with``).

        Args:
            served_models: Models listed by ``GET /v1/models`` (default ``["fake-model"]``).
            strict_models: Answer 404 for chat requests naming an unlisted model.
            api_key: Required bearer token, or None to accept any.
            reasoning_model: Refuse parameters like an OpenAI o-series model.
        """
        self.served_models = list(served_models or ["fake-model"])
        self.strict_models = strict_models
        self.api_key = api_key
        self.reasoning_model = reasoning_model
        self.requests: list[RecordedRequest] = []
        self.errors: list[BaseException] = []
        self._steps: deque[Step] = deque()
        self._default: Step = Reply()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._killed = threading.Event()
        self._dying = False
        self._answers = threading.Condition()
        self._answering = 0
        self._httpd: _QuietServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting ---------------------------------------------------------------

    def script(self, *steps: Step, default: Step | None = None) -> FakeOpenAIServer:
        """Replace the script: ``steps`` answer the next chat requests in order.

        Args:
            *steps: One step per upcoming chat request.
            default: Step for requests after the steps run out (unchanged when None;
                initially ``Reply("OK")``).

        Returns:
            The server, for chaining.
        """
        with self._lock:
            self._steps = deque(steps)
            if default is not None:
                self._default = default
        return self

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The recorded ``POST .../chat/completions`` requests."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _next_step(self, body: dict[str, Any]) -> Step:
        """The step of one request; after a :class:`Die`, a ``Die`` for every request.

        Every other step is counted as being answered until :meth:`_answered`, so that a
        ``Die`` kills the server only once the replies of the steps taken before it are
        sent: a server with the steps ``a, b, Die()`` answers exactly two requests.
        """
        with self._lock:
            if self._dying:
                return Die()
            step = self._steps.popleft() if self._steps else self._default
        with self._answers:
            self._answering += 1
        try:
            while callable(step):
                step = step(body)
        finally:
            if isinstance(step, Die) or callable(step):
                self._answered()
        if isinstance(step, Die):
            with self._lock:
                self._dying = True
        return step

    def _answered(self) -> None:
        with self._answers:
            self._answering -= 1
            self._answers.notify_all()

    def _die(self) -> None:
        """Kill the server once the replies of the steps taken before the death are sent."""
        with self._answers:
            self._answers.wait_for(lambda: self._answering == 0, timeout=10)
        self.kill()

    # -- lifecycle ---------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port."""
        if self._httpd is None:
            raise RuntimeError("fake server not started")
        return int(self._httpd.server_address[1])

    @property
    def connections_done(self) -> int:
        """Connections the server has finished with (closed, reset or failed)."""
        return self._httpd.connections_done if self._httpd is not None else 0

    @property
    def base_url(self) -> str:
        """API root to give clients, e.g. ``http://127.0.0.1:54321/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAIServer:
        """Bind an ephemeral port and serve in a daemon thread.

        Returns:
            The server.
        """
        server = self

        class Handler(_Handler):
            fake = server

        self._stopping.clear()
        self._killed.clear()
        self._dying = False
        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    @property
    def killed(self) -> bool:
        """Whether :meth:`kill` (or a :class:`Die` step) has killed the server."""
        return self._killed.is_set()

    def kill(self) -> None:
        """Die like a crashed server: stop listening, reset every open connection.

        Requests in flight get no reply (their connection is shut), new connections are
        refused (nothing listens on the port). Safe to call from a request handler (a
        :class:`Die` step) and before :meth:`stop`.
        """
        with self._lock:
            self._dying = True
        self._killed.set()
        self._stopping.set()
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        self._httpd.reset_connections()

    def stop(self) -> None:
        """Stop serving; slow steps in flight are cut short."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _QuietServer(ThreadingHTTPServer):
    """A threading server that ends a connection the client dropped without a traceback.

    Attributes:
        connections_done: Connections fully handled (closed, reset or failed).
    """

    daemon_threads = True
    connections_done = 0
    _done_lock = threading.Lock()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._open: set[socket.socket] = set()
        self.reset = False

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """Handle one connection, then count it."""
        with self._done_lock:
            self._open.add(request)
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._done_lock:
                self.connections_done += 1
                self._open.discard(request)

    def reset_connections(self) -> None:
        """Shut every open connection (a killed server's clients see it drop)."""
        with self._done_lock:
            self.reset = True
            open_now = list(self._open)
        for sock in open_now:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Ignore a client that reset or closed the connection; report anything else."""
        exc = sys.exc_info()[1]
        if isinstance(exc, ConnectionError) or (self.reset and isinstance(exc, OSError)):
            return  # the client gave up (timeout), reset an idle connection, or was killed
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """Request handler; ``fake`` is set on a per-server subclass."""

    fake: FakeOpenAIServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def _record(self, body: Any) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        with self.fake._lock:
            self.fake.requests.append(RecordedRequest(self.command, self.path, headers, body))

    def _send(
        self,
        code: int,
        payload: bytes,
        content_type: str = "application/json",
        extra: dict[str, str] | None = None,
    ) -> None:
        try:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (e.g. timed out)

    def _send_json(self, code: int, obj: Any, extra: dict[str, str] | None = None) -> None:
        self._send(code, json.dumps(obj).encode(), extra=extra)

    def _error(self, code: int, message: str, extra: dict[str, str] | None = None) -> None:
        kind = "rate_limit_error" if code == 429 else "invalid_request_error"
        self._send_json(
            code, {"error": {"message": message, "type": kind, "code": code}}, extra=extra
        )

    def _authorized(self) -> bool:
        key = self.fake.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._error(401, _DEFAULT_MESSAGES[401])
        return False

    def do_GET(self) -> None:
        """Serve ``GET /v1/models``."""
        self._record(None)
        if not self._authorized():
            return
        if self.path.rstrip("/").endswith("/models"):
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake"}
                for m in self.fake.served_models
            ]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        """Serve ``POST /v1/chat/completions`` from the script."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self._record(body)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._error(404, f"no route {self.path}")
            return
        if not self._authorized():
            return
        if not isinstance(body, dict):
            self._error(400, "request body is not a JSON object")
            return
        model = str(body.get("model", ""))
        if self.fake.strict_models and model not in self.fake.served_models:
            self._error(404, f"The model `{model}` does not exist.")
            return
        refusal = _refusal(body) if self.fake.reasoning_model else None
        if refusal is not None:
            self._send_json(400, {"error": refusal})
            return
        try:
            step = self.fake._next_step(body)
        except Exception as exc:  # a bug in a test's step function: say so in the reply
            with self.fake._lock:
                self.fake.errors.append(exc)
            self._error(500, f"fake server: scripted step raised {type(exc).__name__}: {exc}")
            return
        if isinstance(step, Die):
            self._answer(step, body)
            return
        try:
            self._answer(step, body)
        finally:
            self.fake._answered()

    def _answer(self, step: Step, body: dict[str, Any]) -> None:
        if isinstance(step, Die):
            self.close_connection = True
            self.fake._die()  # this connection is shut too: no reply
            return
        if isinstance(step, Slow):
            if self.fake._stopping.wait(step.seconds):
                self.close_connection = True
                return
            step = step.then
            while callable(step):
                step = step(body)
            self._answer(step, body)
        elif isinstance(step, str):
            self._answer(Reply(step), body)
        elif isinstance(step, Reply):
            self._send_json(200, _completion_json(step, str(body.get("model", ""))))
        elif isinstance(step, Malformed):
            self._send(200, step.body, content_type=step.content_type)
        elif isinstance(step, Status):
            extra = {}
            retry_after = step.retry_after if step.retry_after is not None else None
            if step.code == 429 and retry_after is None:
                retry_after = 1
            if retry_after is not None:
                extra["Retry-After"] = f"{retry_after:g}"
            message = step.message or _DEFAULT_MESSAGES.get(step.code, f"error {step.code}")
            self._error(step.code, message, extra=extra)
        else:
            self._error(500, f"fake server: bad scripted step {step!r}")


def _refusal(body: dict[str, Any]) -> dict[str, Any] | None:
    """The OpenAI API's error object for a parameter an o-series model refuses, or None."""
    if "max_tokens" in body:
        return {
            "message": "Unsupported parameter: 'max_tokens' is not supported with this "
            "model. Use 'max_completion_tokens' instead.",
            "type": "invalid_request_error",
            "param": "max_tokens",
            "code": "unsupported_parameter",
        }
    if "stop" in body:
        return {
            "message": "Unsupported parameter: 'stop' is not supported with this model.",
            "type": "invalid_request_error",
            "param": "stop",
            "code": "unsupported_parameter",
        }
    temperature = body.get("temperature")
    if temperature is not None and temperature != 1:
        return {
            "message": f"Unsupported value: 'temperature' does not support {temperature!r} "
            "with this model. Only the default (1) value is supported.",
            "type": "invalid_request_error",
            "param": "temperature",
            "code": "unsupported_value",
        }
    return None


def _completion_json(reply: Reply, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.reasoning_content is not None:
        message["reasoning_content"] = reply.reasoning_content
    if reply.reasoning is not None:
        message["reasoning"] = reply.reasoning
    if reply.tool_calls is not None:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(reply.tool_calls)
        ]
    out: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
    }
    if reply.prompt_tokens is not None:
        completion = reply.completion_tokens or 0
        out["usage"] = {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": completion,
            "total_tokens": reply.prompt_tokens + completion,
        }
        if reply.reasoning_tokens is not None:
            out["usage"]["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens}
    return out


def fake_openai_server(**kwargs: Any) -> Iterator[FakeOpenAIServer]:
    """Yield a started server and stop it afterwards (the body of the pytest fixture).

    Args:
        **kwargs: Passed to :class:`FakeOpenAIServer`.

    Yields:
        The running server.
    """
    with FakeOpenAIServer(**kwargs) as fake:
        yield fake
