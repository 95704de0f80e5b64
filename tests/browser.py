"""A headless Chromium driven through its DevTools protocol, for the tests that open a page in a real browser.

Why the DevTools protocol over a pipe (``--remote-debugging-pipe``), and not ``--dump-dom`` / ``--screenshot`` or a
driver package: the tests must read the *rendered* page (the size of a chart's bars, a hex view's marked field once
its finding is opened, the requests the page makes), which the one-shot flags cannot give; a driver package
(Selenium, Playwright, pyppeteer) brings its own browser download or a chromedriver of the exact version, and a
network this machine does not have.  The pipe needs neither a port (no clash between test runs, nothing listening)
nor anything but the ``chromium`` Debian installs: the protocol is JSON messages separated by NUL bytes on the
child's descriptors 3 (to the browser) and 4 (from it).

Chromium starts with ``--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
--disable-component-update --disable-sync`` and a fresh ``--user-data-dir``; every reply is awaited at most
``timeout`` seconds, and the browser is killed when the :class:`Browser` closes.

:func:`png_pixels` decodes the screenshots (8-bit RGB or RGBA PNG, the five filter types) with numpy only.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync")


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    """One Chromium process and one page (tab) in it."""

    def __init__(self, executable: str, *, timeout: float = 30.0, width: int = 1200, height: int = 900) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="d3d12wl-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def descriptors() -> None:  # (in the child: the pipe's ends as descriptors 3 and 4)
            a = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen([executable, *FLAGS, f"--user-data-dir={self.profile}",
                                      "--remote-debugging-pipe", "about:blank"],
                                     preexec_fn=descriptors, close_fds=False, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        try:
            target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            self.page("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                             "deviceScaleFactor": 1, "mobile": False})
            self.page("Network.enable")
            self.page("Page.enable")
        except BaseException:
            self.close()
            raise

    def _send(self, method: str, params: dict[str, Any] | None, session: str | None) -> int:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        return self._next

    def _messages(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._from_browser], [], [], max(0.0, left))
            if not ready:
                raise BrowserError(f"no answer from Chromium within {self.timeout:g} s")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        out: dict[str, Any] = json.loads(message)
        return out

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._messages(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                result: dict[str, Any] = message["result"]
                return result
            if "method" in message:
                self.events.append(message)

    def page(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.call(method, params, self.session)

    def open(self, path: Path) -> None:
        """Load ``path`` and wait until it has loaded (its ``load`` event fired)."""
        self.events.clear()
        self.page("Page.navigate", {"url": path.resolve().as_uri()})
        self.evaluate("new Promise(done => document.readyState === 'complete' ? done(true) : "
                      "addEventListener('load', () => done(true)))")

    def evaluate(self, expression: str) -> Any:
        """The JSON value of ``expression`` in the page (a promise is awaited)."""
        got = self.page("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in got:
            raise BrowserError(f"{expression[:60]}...: {got['exceptionDetails']}")
        return got["result"].get("value")

    def screenshot(self, *, scale: float = 0.5) -> bytes:
        """The whole page as PNG, at ``scale``."""
        size = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        shot = self.page("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                    "clip": {"x": 0, "y": 0, "width": size[0], "height": size[1],
                                                             "scale": scale}})
        return base64.b64decode(shot["data"])

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                try:
                    self._send("Browser.close", None, None)
                    self.proc.wait(5)
                except (OSError, subprocess.TimeoutExpired):
                    self.proc.kill()
                    self.proc.wait(5)
        finally:
            for fd in (self._to_browser, self._from_browser):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def png_pixels(data: bytes) -> np.ndarray:
    """An 8-bit RGB or RGBA PNG as an array of shape (height, width, channels)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos: pos + 4])
        kind, body = data[pos + 4: pos + 8], data[pos + 8: pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    assert header is not None
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and not interlace, header
    channels = 3 if color == 2 else 4
    stride = width * channels
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8).reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.uint8)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:]
        if kind == 0:
            row = line.copy()
        elif kind == 1:  # Sub: a running sum per channel
            row = np.cumsum(line.reshape(width, channels).astype(np.int64), axis=0).astype(np.uint8).reshape(-1)
        elif kind == 2:
            row = line + prev
        else:  # Average, Paeth: each byte from the one reconstructed before it
            row = np.zeros(stride, dtype=np.uint8)
            cur, up = line.tolist(), prev.tolist()
            done = [0] * stride
            for i in range(stride):
                a = done[i - channels] if i >= channels else 0
                c = up[i - channels] if i >= channels else 0
                pred = (a + up[i]) // 2 if kind == 3 else _paeth(a, up[i], c)
                done[i] = (cur[i] + pred) & 0xFF
            row[:] = done
        out[y] = row
        prev = row
    return out.reshape(height, width, channels)
