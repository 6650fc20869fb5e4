"""Standard input for the MCP stdio transport, held to the one rule for text
(:mod:`citation_verifier.utf8`). The SDK decodes its JSON lines with ``errors="replace"``, so a
byte that is not UTF-8 would reach a tool as U+FFFD and be judged; and its JSON parser rejects
an unpaired ``\\ud800`` escape, so that request would get no answer at all. Here fd 0 becomes a
pipe fed from the real standard input, each such byte and escape turned into its mark (valid
UTF-8, valid JSON), which the tools' validation then refuses with a message naming it."""

from __future__ import annotations

import codecs
import os
import re
import threading

from citation_verifier.utf8 import MARK_ERRORS, surrogate_mark

# A JSON escape: \uXXXX (and the \uXXXX right after it, to tell a pair from a lone half) or
# any other backslash pair, matched from left to right so that "\\ud800" stays literal text.
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})(?:\\u([0-9a-fA-F]{4}))?|\\.")


class MarkedInput:
    """The writing end of the pipe the transport reads. Closing it is end of input for the
    transport, even while the pump waits on a terminal that will never send another line:
    how Ctrl-C ends the stdio server (a blocked read of the terminal cannot be cancelled)."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd
        self._lock = threading.Lock()
        self._end_asked = False

    def write(self, data: bytes) -> bool:
        """Write all of ``data``; False once the input was ended or the reader left."""
        with self._lock:  # never a write to a closed (maybe reused) fd number
            if self._fd is None:
                return False
            view = memoryview(data)
            try:
                while view:
                    view = view[os.write(self._fd, view) :]
            except BrokenPipeError:  # the transport stopped reading: the server is ending
                return False
            if self._end_asked:
                self._close()
            return self._fd is not None

    def end(self) -> None:
        """End the transport's input (idempotent). Safe in a signal handler: while a write
        holds the pipe, the writer closes it when that write is done."""
        self._end_asked = True
        if self._lock.acquire(blocking=False):
            try:
                self._close()
            finally:
                self._lock.release()

    def _close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def mark_invalid_stdin() -> MarkedInput:
    """Interpose the marking pipe on fd 0 (before the transport opens it); its writing end."""
    real = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)
    sink = MarkedInput(write_end)
    threading.Thread(target=_pump, args=(real, sink), daemon=True).start()
    return sink


def marked_line(line: str) -> str:
    """``line`` (JSON text) with each unpaired surrogate escape replaced by its mark."""
    return _ESCAPE.sub(_unpaired, line)


def _unpaired(match: re.Match[str]) -> str:
    if match.group(1) is None:
        return match.group(0)
    first = int(match.group(1), 16)
    second = None if match.group(2) is None else int(match.group(2), 16)
    if 0xD800 <= first <= 0xDBFF and second is not None and 0xDC00 <= second <= 0xDFFF:
        return match.group(0)  # a proper pair
    head = surrogate_mark(first) if 0xD800 <= first <= 0xDFFF else match.group(0)[:6]
    if second is None:
        return head
    tail = "\\u" + match.group(2)
    return head + (marked_line(tail) if 0xD800 <= second <= 0xDFFF else tail)


def _pump(source_fd: int, sink: MarkedInput) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors=MARK_ERRORS)
    pending = ""
    with open(source_fd, "rb", buffering=0) as source:
        try:
            while chunk := source.read(65536):
                *lines, pending = (pending + decoder.decode(chunk)).split("\n")
                for line in lines:
                    if not sink.write((marked_line(line) + "\n").encode("utf-8")):
                        return
            rest = pending + decoder.decode(b"", final=True)
            if rest:
                sink.write(marked_line(rest).encode("utf-8"))
        finally:
            sink.end()
