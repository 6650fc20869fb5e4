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


def mark_invalid_stdin() -> None:
    """Interpose the marking pipe on fd 0 (before the transport opens it)."""
    real = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)
    threading.Thread(target=_pump, args=(real, write_end), daemon=True).start()


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


def _pump(source_fd: int, sink_fd: int) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors=MARK_ERRORS)
    pending = ""
    with open(source_fd, "rb", buffering=0) as source, open(sink_fd, "wb", buffering=0) as sink:
        try:
            while chunk := source.read(65536):
                *lines, pending = (pending + decoder.decode(chunk)).split("\n")
                for line in lines:
                    sink.write((marked_line(line) + "\n").encode("utf-8"))
            rest = pending + decoder.decode(b"", final=True)
            if rest:
                sink.write(marked_line(rest).encode("utf-8"))
        except BrokenPipeError:  # the transport stopped reading: the server is ending
            return
