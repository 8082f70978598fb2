#!/usr/bin/env python3
"""Opens a `vcloe report` HTML file in headless Chromium and checks what a reader would see:

- images:  every <img> loads (the report embeds them as data: URIs, so a failure is ours);
- rows:    <table id="parameters"> has exactly --rows rows in its <tbody>;
- render:  a screenshot of the whole page is not blank: over its top 1280x1000 pixels the
           luminance varies, a share of pixels is off the background, some are dark (text);
- console: the page logs no error: no console.error/assert, no uncaught exception or unhandled
           rejection, no error of the browser's own about the page (e.g. a failed load).

Usage: report_browser.py REPORT.html SCREENSHOT.png [--rows 67]. Prints one line per check;
exit status 0 when every check holds, 1 otherwise. Standard library only.

"images" and the screenshot's height rely on this inline script, which the report must carry
in its <body> (without the pageHeight line, the screenshot is 6000 px tall):

<script>
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  document.body.dataset.imagesLoaded = ok + "/" + imgs.length;
  document.body.dataset.pageHeight = document.documentElement.scrollHeight;
});
</script>

Why "console" uses the DevTools protocol (over --remote-debugging-pipe) and not stderr: with
--enable-logging=stderr, Chromium 156 logs every console message of a web page at INFO
("INFO:CONSOLE:<line>] "x", source: ..."), console.error and console.log alike, and the ERROR
lines on its stderr are its own (dbus, vaapi, sandbox in a container), never the page's.
"""
import argparse
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from html.parser import HTMLParser

WIDTH, TOP, TIMEOUT = 1280, 1000, 120
BASE = ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]


def kill_group(proc):
    """Ends a chromium we started with start_new_session (its process group is its own)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def run_chromium(chromium, args, stdout=subprocess.DEVNULL):
    """Runs chromium with a private profile; stops it after TIMEOUT seconds."""
    profile = tempfile.mkdtemp(prefix="report_browser.")
    try:
        with subprocess.Popen([chromium, *BASE, f"--user-data-dir={profile}", *args], stdout=stdout,
                              stderr=subprocess.DEVNULL, start_new_session=True) as proc:
            try:
                return proc.communicate(timeout=TIMEOUT)[0]
            except subprocess.TimeoutExpired:
                kill_group(proc)
                raise SystemExit(f"FAIL chromium did not finish within {TIMEOUT} s: {args}")
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class DomFacts(HTMLParser):
    """From the dumped DOM: the <body> attributes and the <tbody> rows of the parameter table."""

    def __init__(self, html):
        super().__init__()
        self.body, self.rows, self.depth, self.in_tbody, self.found = {}, 0, 0, False, False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self.body = dict(attrs)
        elif tag == "table" and (self.depth or ("id", "parameters") in attrs):
            self.found, self.depth = True, self.depth + 1  # depth > 1: a table nested in a cell
        elif self.depth == 1 and tag == "tbody":
            self.in_tbody = True
        elif self.depth == 1 and self.in_tbody and tag == "tr":
            self.rows += 1

    def handle_endtag(self, tag):
        if tag == "table" and self.depth:
            self.depth -= 1
        elif tag == "tbody" and self.depth == 1:
            self.in_tbody = False


def unfilter(kind, line, prev, bpp):
    """Undoes a PNG scanline filter (types 0-4) in place; prev is the unfiltered line above."""
    if kind == 2:
        line[:] = bytes((x + b) & 255 for x, b in zip(line, prev))
    elif kind in (1, 3, 4):
        for i in range(len(line)):
            a, b, c = (line[i - bpp], prev[i], prev[i - bpp]) if i >= bpp else (0, prev[i], 0)
            if kind == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                a = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + (a if kind != 3 else (a + b) >> 1)) & 255
    elif kind != 0:
        raise ValueError(f"PNG filter type {kind}")


def read_png(path, max_rows):
    """(width, height, bytes per pixel, first max_rows lines) of an 8-bit RGB(A) PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG file")
    pos, idat = 8, []
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])  # IHDR
    while pos + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + size])
        pos += 12 + size
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour {colour}, interlace {interlace}")
    bpp, n = 3 if colour == 2 else 4, min(height, max_rows)
    stride = width * bpp + 1
    raw = zlib.decompressobj().decompress(b"".join(idat), stride * n)  # only the lines we need
    lines, above = [], bytearray(width * bpp)
    for y in range(n):
        line = bytearray(raw[y * stride + 1:(y + 1) * stride])
        unfilter(raw[y * stride], line, above, bpp)
        lines.append(line)
        above = line
    return width, height, bpp, lines


def ink(lines, bpp):
    """(luminance standard deviation, share of pixels off the background, dark pixels)."""
    histogram = [0] * 256
    for line in lines:
        for r, g, b in zip(line[0::bpp], line[1::bpp], line[2::bpp]):
            histogram[(299 * r + 587 * g + 114 * b) // 1000] += 1
    n = sum(histogram)
    mean = sum(v * k for v, k in enumerate(histogram)) / n
    std = (sum(k * (v - mean) ** 2 for v, k in enumerate(histogram)) / n) ** 0.5
    background = max(range(256), key=histogram.__getitem__)
    off = sum(k for v, k in enumerate(histogram) if abs(v - background) > 16) / n
    return std, off, sum(histogram[:100])


class DevTools:
    """The DevTools protocol over --remote-debugging-pipe: JSON messages, each ended by a NUL,
    which the browser reads from its fd 3 and writes to its fd 4."""

    def __init__(self, chromium, profile):
        cmd_r, self.cmd_w = os.pipe()
        self.resp_r, resp_w = os.pipe()  # resp_w > cmd_r >= 3: the redirections cannot clash
        self.proc = subprocess.Popen(
            ["/bin/sh", "-c", f'exec "$0" "$@" 3<&{cmd_r} 4>&{resp_w}', chromium, *BASE,
             f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            pass_fds=(cmd_r, resp_w), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        os.close(cmd_r)
        os.close(resp_w)
        self.buffer, self.last_id, self.events = b"", 0, []
        self.deadline = time.monotonic() + TIMEOUT

    def receive(self, until):
        """The next message, or None if none comes before `until` (time.monotonic)."""
        while b"\0" not in self.buffer:
            if not select.select([self.resp_r], [], [], max(0, until - time.monotonic()))[0]:
                return None
            chunk = os.read(self.resp_r, 1 << 20)
            if not chunk:
                raise SystemExit("FAIL chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None):
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params or {}}
        message.update({"sessionId": session} if session else {})
        os.write(self.cmd_w, json.dumps(message).encode() + b"\0")

    def call(self, method, params=None, session=None):
        """Sends a command and returns its result, keeping the events that come meanwhile."""
        self.send(method, params, session)
        while (reply := self.receive(self.deadline)) is not None:
            if reply.get("id") == self.last_id:
                return reply.get("result", {})
            self.events.append(reply)
        raise SystemExit(f"FAIL chromium did not answer {method} within {TIMEOUT} s")

    def collect(self, seconds, stop_at=None):
        """Keeps the events of the next `seconds`; True as soon as one is named stop_at."""
        until = min(self.deadline, time.monotonic() + seconds)
        while (event := self.receive(until)) is not None:
            self.events.append(event)
            if event.get("method") == stop_at:
                return True
        return any(e.get("method") == stop_at for e in self.events)

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):  # OSError: the pipe is already closed
            kill_group(self.proc)
        os.close(self.cmd_w)
        os.close(self.resp_r)


def page_events(chromium, url, settle=1.0):
    """The DevTools events of loading the page, until `settle` seconds after its load event."""
    profile = tempfile.mkdtemp(prefix="report_browser.")
    browser = DevTools(chromium, profile)
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        for domain in ("Runtime", "Log", "Page"):
            browser.call(f"{domain}.enable", session=session["sessionId"])
        browser.call("Page.navigate", {"url": url}, session["sessionId"])
        if not browser.collect(TIMEOUT, stop_at="Page.loadEventFired"):
            raise SystemExit(f"FAIL the page did not load within {TIMEOUT} s")
        browser.collect(settle)  # what onload handlers and short timers log
        return browser.events
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)


CONSOLE_EVENTS = ("Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded")


def console_error(event):
    """The error an event reports, or None. Errors: Runtime.consoleAPICalled of type error or
    assert; any Runtime.exceptionThrown (uncaught exception, unhandled rejection); Log.entryAdded
    of level error (the browser's own messages about the page, e.g. a resource failed to load)."""
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
        return f"console.{params['type']}: " + " ".join(
            str(a.get("value", a.get("description", ""))) for a in params["args"])
    if method == "Runtime.exceptionThrown":
        details = params["exceptionDetails"]
        return f"{details['text']} {details.get('exception', {}).get('description', '')}"
    if method == "Log.entryAdded" and params["entry"]["level"] == "error":
        return f"{params['entry']['text']} ({params['entry'].get('url', '')})"
    return None


def check_dom(chromium, url, rows):
    """The images and rows checks on the DOM as it is after onload; and the DOM's facts."""
    dom = run_chromium(chromium, [f"--window-size={WIDTH},{TOP}", "--virtual-time-budget=5000",
                                  "--dump-dom", url], stdout=subprocess.PIPE)
    facts = DomFacts(dom.decode("utf-8", "replace"))
    loaded = facts.body.get("data-images-loaded", "")
    good, _, total = loaded.partition("/")
    table = '<table id="parameters">'
    return facts, [
        ("images", good == total and total.isdigit() and int(total) > 0,
         f"{loaded} images loaded" if loaded
         else "no data-images-loaded on <body>: the inline script is missing or did not run"),
        ("rows", facts.found and facts.rows == rows,
         f"{facts.rows} rows in {table}<tbody>, expected {rows}" if facts.found
         else f"no {table} in the page")]


def check_render(chromium, url, facts, screenshot):
    """Screenshots the whole page (as tall as the inline script measured it, else 6000 px: white
    space at the bottom is harmless, only the top is judged) and looks for ink on its top."""
    height = facts.body.get("data-page-height", "")
    height = min(max(int(height) if height.isdigit() else 6000, TOP), 16000)
    if os.path.exists(screenshot):
        os.remove(screenshot)
    run_chromium(chromium, [f"--window-size={WIDTH},{height}", "--virtual-time-budget=5000",
                            f"--screenshot={screenshot}", url])
    if not os.path.exists(screenshot):
        return [("render", False, f"chromium wrote no screenshot to {screenshot}")]
    width, full, bpp, lines = read_png(screenshot, TOP)
    std, off, dark = ink(lines, bpp)
    return [("render", std > 3 and off > 0.005 and dark >= 200,
             f"screenshot {width}x{full}, top {width}x{len(lines)}: luminance std {std:.1f} (> 3), "
             f"{100 * off:.1f}% off background (> 0.5%), {dark} dark pixels (>= 200)")]


def check_console(chromium, url):
    events = page_events(chromium, url)
    errors = [e.splitlines()[0] for e in map(console_error, events) if e is not None]
    messages = sum(e.get("method") in CONSOLE_EVENTS for e in events)
    return [("console", not errors, f"{len(errors)} errors among {messages} console messages"
             + "".join(f"\n       {e}" for e in errors[:10]))]


def main():
    parser = argparse.ArgumentParser(description="Checks a vcloe report in headless Chromium.")
    parser.add_argument("report")
    parser.add_argument("screenshot")
    parser.add_argument("--rows", type=int, default=67)
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        print("chromium not found: install it with scripts/install-deps.sh")
        return 1
    if not os.path.isfile(args.report):
        print(f"FAIL no report at {args.report}")
        return 1
    started, url = time.monotonic(), "file://" + os.path.abspath(args.report)
    facts, results = check_dom(chromium, url, args.rows)
    results += check_render(chromium, url, facts, os.path.abspath(args.screenshot))
    results += check_console(chromium, url)
    for name, holds, seen in results:
        print(f"{'ok  ' if holds else 'FAIL'} {name}: {seen}")
    failures = [name for name, holds, _ in results if not holds]
    print(f"FAIL {', '.join(failures)}" if failures else "all checks hold",
          f"({time.monotonic() - started:.1f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
