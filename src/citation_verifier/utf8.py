"""One rule for the text users send, on every surface (CLI files and standard input, batch
JSONL, the HTTP API, MCP): it is UTF-8 (a UTF-8 byte-order mark is accepted and dropped), and
anything else is refused with the byte and its offset, never guessed at. Latin-1 and cp1252 look
alike byte for byte, so a detector would sometimes judge mojibake; a refusal says how to convert.

Text that reached Python already decoded can still carry what is not Unicode text: command-line
arguments with bytes that are not UTF-8 (Python keeps them as surrogates U+DC80–U+DCFF,
"surrogateescape"), or JSON's ``\\ud800`` escapes (an unpaired surrogate). Neither can be
printed, written to a UTF-8 report or sent to a page; :func:`text_problem` names them.
"""

from __future__ import annotations

import codecs

BOM = b"\xef\xbb\xbf"
CONVERT_HINT = "convert it with iconv -f latin1 -t utf-8"
_ESCAPED_BYTES = range(0xDC80, 0xDD00)  # how surrogateescape keeps a byte that is not UTF-8
_MARKS = 0x10FF00  # the last 256 private-use code points: byte N is kept as U+10FF00 + N

MARK_ERRORS = "citation-verifier-mark"
"""A codec error handler for a channel that must stay valid text (MCP's stdio JSON lines):
each byte that is not UTF-8 becomes a private-use mark, which :func:`text_problem` names (with
the byte) where an argument is validated, instead of a U+FFFD that would be judged."""


_SURROGATE_MARKS = 0x10F000  # U+D800 + N is kept as U+10F000 + N (N < 0x800)


def surrogate_mark(code: int) -> str:
    """The mark that stands for the unpaired surrogate ``code`` on a channel that must stay
    valid text; :func:`text_problem` names it as that surrogate."""
    return chr(_SURROGATE_MARKS + code - 0xD800)


def _mark(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError):
        raise error
    bad = error.object[error.start : error.end]
    return "".join(chr(_MARKS + byte) for byte in bad), error.end


codecs.register_error(MARK_ERRORS, _mark)


def utf8_problem(data: bytes, start: int = 0) -> str | None:
    """``not UTF-8 text (invalid byte 0xE9 at offset 1234)`` for the first byte of ``data``
    that is not UTF-8 (its offset counted from ``start``); None when ``data`` is UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        byte = data[error.start]
        return f"not UTF-8 text (invalid byte 0x{byte:02X} at offset {start + error.start})"
    return None


class NotUtf8Error(ValueError):
    """Bytes that are not UTF-8; the message names the source, the byte and its offset."""


def decode_utf8(data: bytes, source: str) -> str:
    """``data`` as text, a leading UTF-8 byte-order mark dropped; :class:`NotUtf8Error`
    (``SOURCE is not UTF-8 text (invalid byte 0xE9 at offset 1234); convert it ...``) when it
    is not UTF-8."""
    skipped = len(BOM) if data.startswith(BOM) else 0
    problem = utf8_problem(data[skipped:], skipped)
    if problem is not None:
        raise NotUtf8Error(f"{source} is {problem}; {CONVERT_HINT}")
    return data[skipped:].decode("utf-8")


def text_problem(text: str) -> str | None:
    """Why ``text`` is not Unicode text (a byte that was not UTF-8, kept as a surrogate or a
    :data:`MARK_ERRORS` mark; an unpaired surrogate from a JSON escape); None when it is."""
    for index, char in enumerate(text):
        code = ord(char)
        byte = (
            code - 0xDC00 if code in _ESCAPED_BYTES else code - _MARKS if code >= _MARKS else None
        )
        if byte is not None:
            offset = len(text[:index].encode("utf-8"))
            return f"not UTF-8 text (invalid byte 0x{byte:02X} at offset {offset})"
        if _SURROGATE_MARKS <= code < _SURROGATE_MARKS + 0x800:
            code -= _SURROGATE_MARKS - 0xD800
        if 0xD800 <= code <= 0xDFFF:
            return f"not Unicode text (an unpaired surrogate \\u{code:04x} at character {index})"
    return None


def check_text(text: str) -> str:
    """``text`` unchanged, or ValueError with :func:`text_problem` (for validators)."""
    problem = text_problem(text)
    if problem is not None:
        raise ValueError(problem)
    return text
