#!/usr/bin/env python3
"""Key -> screen latency of the real browser while a million resources stream in.

Runs mcpick (release build) in a pseudo-terminal (120x40) against the demo server, types
while the listing streams in and after it, and times each key from the moment it is written
to the terminal to the moment the terminal's screen shows its effect. The screen is kept by
pyte (a terminal emulator) fed with every byte mcpick writes, read in a tight loop, so the
figure is what a person's terminal would show, with no polling delay on top (unlike
`tmux capture-pane`). Budget (DESIGN.md): input -> frame <= 16 ms at any size, during
loading too.

    python3 -m venv target/bench-venv && target/bench-venv/bin/pip install pyte
    cargo build --release
    target/bench-venv/bin/python benches/keys_while_loading.py [--count 1000000]

Keys cycle through: Down, Up (the tree cursor moves to another row), `/` (the search line opens), `n o t e`
typed, four Backspaces, Esc (the search line closes); one key every 150 ms. Latencies are
grouped by how many resources were loaded when the key was sent; median, p90 and max.
"""

import argparse
import fcntl
import os
import pty
import re
import select
import statistics
import struct
import sys
import tempfile
import termios
import time

import pyte

COLS, ROWS = 120, 40
SEARCH_LINE = 1

DOWN, UP, ESC, BACKSPACE = "\x1b[B", "\x1b[A", "\x1b", "\x7f"


def parse_count(text):
    return int(text.replace(",", ""))


class Browser:
    def __init__(self, binary, count):
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(tempfile.mkdtemp())  # the set file goes here
            os.environ["TERM"] = "xterm-256color"
            os.execv(binary, [binary, "--", binary, "demo-server", "--count", str(count)])
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))

    def pump(self, timeout):
        """Feeds what mcpick wrote within `timeout` seconds to the screen."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                raise SystemExit("mcpick ended")
            self.stream.feed(data)
            # pyte answers nothing; mcpick asks the terminal nothing it waits for.

    def line(self, y):
        return self.screen.display[y]

    def wait(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                return False
            self.pump(0.001)
        return True

    def cursor_label(self):
        """The label of the row the cursor is on, without counts (they grow as pages come)."""
        for y in range(3, ROWS - 1):
            if self.line(y)[1:2] == "▶":
                return re.sub(r"[\d,]", "", self.line(y)[2:53]).strip()
        return None

    def loaded(self):
        """(resources loaded so far, listing finished)."""
        header = self.line(0)
        m = re.search(r"ready · ([\d,]+) resource", header)
        if m:
            return parse_count(m.group(1)), True
        m = re.search(r"loading page \d+ · ([\d,]+) resources", header)
        if m:
            return parse_count(m.group(1)), False
        return 0, False

    def send(self, key):
        os.write(self.fd, key.encode())

    def close(self):
        self.send("q")
        time.sleep(0.5)
        try:
            os.kill(self.pid, 15)
        except ProcessLookupError:
            pass


def script():
    """(key, expected search line or cursor move) pairs, in a loop."""
    keys = [(DOWN, None), (UP, None), ("/", "/ ▏")]
    query = ""
    for c in "note":
        query += c
        keys.append((c, f"/ {query}▏"))
    for _ in range(4):
        query = query[:-1]
        keys.append((BACKSPACE, f"/ {query}▏"))
    keys.append((ESC, "/ press / to search"))
    return keys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="target/release/mcpick")
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--after", type=int, default=60, help="keys sent after the listing")
    args = ap.parse_args()
    b = Browser(os.path.realpath(args.bin), args.count)
    if not b.wait(lambda: b.loaded()[0] > 0, 30):
        sys.exit("no page listed in 30 s")
    samples = []  # (resources loaded, finished, latency ms)
    keys = script()
    i = after = 0
    started = time.monotonic()
    while after < args.after:
        key, expect = keys[i % len(keys)]
        i += 1
        loaded, finished = b.loaded()
        if expect is None:
            # The cursor moved to another row (its row on screen may move as rows arrive
            # above it; its label changes only when it moves).
            before = b.cursor_label()
            if before is None:
                continue
            check = lambda: b.cursor_label() not in (before, None)  # noqa: E731
        else:
            check = lambda: b.line(SEARCH_LINE).startswith(expect)  # noqa: E731
        t0 = time.monotonic()
        b.send(key)
        if not b.wait(check, 10):
            sys.exit(f"key {key!r} showed no effect in 10 s: {b.line(SEARCH_LINE)!r}")
        samples.append((loaded, finished, (time.monotonic() - t0) * 1000))
        after += finished
        # Let the next key come a little later, feeding the screen meanwhile.
        pause = time.monotonic() + 0.15
        while time.monotonic() < pause:
            b.pump(0.005)
    total, _ = b.loaded()
    b.close()

    print(f"mcpick browser, demo server with {total:,} resources, {COLS}x{ROWS} pty, "
          f"listed in about {time.monotonic() - started:.0f} s with the keys after it")
    print(f"{'resources loaded when the key came':<38} {'keys':>5} {'median':>8} "
          f"{'p90':>8} {'max':>8}")
    edges = [0, 100_000, 500_000, args.count + 1]
    groups = [(f"{lo:,} – {hi - 1 if hi > args.count else hi:,} (loading)",
               [ms for n, f, ms in samples if not f and lo <= n < hi])
              for lo, hi in zip(edges, edges[1:])]
    groups.append(("after the listing", [ms for _, f, ms in samples if f]))
    for label, ms in groups:
        if not ms:
            continue
        ms.sort()
        p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
        print(f"{label:<38} {len(ms):>5} {statistics.median(ms):>6.1f}ms "
              f"{p90:>6.1f}ms {ms[-1]:>6.1f}ms")


if __name__ == "__main__":
    main()
