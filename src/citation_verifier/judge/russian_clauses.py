"""Russian clauses: what a page sentence asserts of a claim, read from a dependency parse.

The embedded LLM reads Russian, but like every small model it calls a claim supported when its
words are on the page: "Он не думает, что цены вырастут" holds every word of "Цены вырастут",
and "Васю ударил Петя" every word of "Петя ударил Васю" (Russian word order is free, so word
order says nothing about roles). A parse says which: Natasha's Slovnet syntax model (Universal
Dependencies relations, with its Navec embeddings; both ship inside the ``natasha`` package, MIT)
and pymorphy3's lemmas (its dictionary ships in ``pymorphy3-dicts-ru``). Natasha's own Python
code is not imported: only its model files are read.

For the claim's main clause (its predicate's lemma, subjects, objects and whether it is negated)
the checks look for clauses of the evidence sentences with the same predicate and arguments that
do not contradict the claim's (:func:`find`):

- ``commitment``: every such clause is held only as what someone believes, fears or hopes
  ("думает, что …"), asks ("… ли …", "разве …", any clause before a "?"), wishes ("чтобы …"),
  supposes ("если …", "… бы …"), hedges ("возможно, …", "якобы …", "будто …") or what nobody
  says ("не говорил, что …"), or as a deed only tried, meant, asked for, possible or due
  ("пытались закрыть", "потребовал закрыть", "должна проверить", "может вызывать"), or one
  someone is only accused of ("обвиняется в убийстве", "подозревают в нанесении"): not_found.
  Any other frame (known: "знал, что …", even "не знал, что …"; reported: "сообщил, что …";
  managed: "смогли закрыть", "удалось закрыть"; a modal that introduces a statement: "стоит
  отметить, что …") leaves the clause the page's.
- ``negated``: every asserted such clause has the other polarity ("цены не вырастут" against
  "цены вырастут"): contradicted, with that sentence as the quote.
- ``roles``: the predicate is there only with the claim's subject as its object and its object as
  its subject (both active): not_found.

Anything else decides nothing: the model's verdict stands.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citation_verifier.models import Label

_NAVEC = "emb/navec_news_v1_1B_250K_300d_100q.tar"
_SYNTAX = "model/slovnet_syntax_news_v1.tar"
_LEMMA_CACHE = 100_000
# A claim longer than this is no single clause to compare.
MAX_CLAIM_WORDS = 40
# Share of the claim's content lemmas a sentence must hold to be read as holding the claim
# (a negation or a role swap needs them all: the only difference is then the one it names).
ABOUT_SHARE = 0.6

# ы and э: of the Cyrillic languages only Russian writes them without one of the letters
# Russian never writes (Belarusian і and ў, Kazakh ә …).
_RUSSIAN_ONLY = re.compile("[ыэЫЭ]")
_OTHER_CYRILLIC = re.compile("[іїєґўјљњђћџѓќѕәөүңқғұһӘӨҮҢҚҒҰҺІЇЄҐЎЈЉЊЂЋЏЃЌЅ]")
_CYRILLIC = re.compile("[а-яА-ЯёЁ]")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# The verb (or predicate word) a clause is the object of, by lemma.
BELIEVING = _words(
    "думать подумать полагать предполагать считать счесть верить поверить надеяться "
    "понадеяться бояться побояться опасаться подозревать заподозрить сомневаться усомниться "
    "ожидать казаться показаться представлять представить воображать вообразить мечтать "
    "хотеть захотеть желать допускать допустить притворяться притвориться мнить уверенный "
    "убеждённый убежденный уверять уверить гадать спрашивать спросить интересовать "
    "интересно отрицать опровергать подозрение мнение обманываться обмануться ошибаться "
    "ошибиться заблуждаться"
)
# Words whose infinitive is only meant, tried, asked for, possible or due ("пытались скрыть",
# "требовал убрать", "должна проверить", "может вызывать"): none says it was done. The
# implicatives that do ("смог", "удалось", "успел") are not here.
INTENDING = _words(
    "собираться собраться намереваться намеренный планировать запланировать пытаться "
    "попытаться стараться постараться требовать потребовать просить попросить предлагать "
    "предложить велеть приказать приказывать поручить поручать настаивать настоять умолять "
    "призывать призвать советовать посоветовать рекомендовать порекомендовать обещать "
    "пообещать отказаться отказываться готовый мочь должный нужно надо необходимо можно "
    "следовать стоить хотеться"
)
SAYING = _words(
    "сказать говорить утверждать заявлять заявить сообщать сообщить писать написать "
    "рассказывать рассказать объявлять объявить обещать пообещать упоминать упомянуть "
    "подтверждать подтвердить признавать признать отметить отмечать подчеркнуть подчёркивать "
    "подчеркивать заметить замечать напомнить напоминать"
)
# Words that make the clause they sit in no statement of fact.
_UNASSERTING_MARKS = _words("ли разве неужели бы б будто якобы чтобы чтоб если ежели")
# A sentence opened by these is a question, whatever word the parse hangs them on.
_QUESTION_OPENERS = _words("разве неужели")
# A question runs back from its "?" to the nearest of these (or the sentence's start): "Ты
# сказала: «Зачем они мне нужны?»" asks only what follows the colon and the quote.
_QUESTION_STARTS = frozenset(':;«“„"(.!…')
# Words that charge someone with a deed, and the deed they name ("подозревают в нанесении
# ранений", "обвиняется в убийстве", "задержан по подозрению в краже"): an accusation, not a
# finding ("признан виновным в убийстве" is one, and is not here).
ACCUSING = _words(
    "обвинять обвинить обвиняться обвиниться подозревать заподозрить подозреваться обвинение "
    "подозрение обвиняемый подозреваемый"
)
_HEDGES = _words(
    "возможно вероятно наверное наверно видимо кажется пожалуй предположительно якобы по-видимому"
)
_NEGATIONS = frozenset({"не", "ни"})
_SUBJECTS = {"nsubj"}
_PASSIVE_SUBJECTS = {"nsubj:pass"}
_OBJECTS = {"obj", "iobj"}
_COMPLEMENTS = {"ccomp", "csubj", "xcomp", "parataxis"}
_NAME_PARTS = {"flat", "flat:name", "flat:foreign", "appos", "compound"}


def is_russian(*texts: str, identify: Callable[[str], str | None] | None = None) -> bool:
    """Whether ``texts`` are Russian: Cyrillic without the letters only Ukrainian, Belarusian,
    Serbian, Macedonian or the Turkic languages write, and with ы or э, which Bulgarian never
    writes. A short text may have neither (a claim, and the evidence sentences chosen for it,
    often do): then ``identify`` (a language identifier: text → ISO 639-1 code) decides."""
    joined = " ".join(texts)
    if not _CYRILLIC.search(joined) or _OTHER_CYRILLIC.search(joined):
        return False
    if _RUSSIAN_ONLY.search(joined):
        return True
    return identify is not None and identify(joined) == "ru"


@dataclass(frozen=True)
class RuClause:
    """One predicate of a sentence and what the parse says about it."""

    lemma: str
    subjects: frozenset[str]
    objects: frozenset[str]
    negated: bool
    asserted: bool
    """Stated as fact or known: not believed, asked, wished, supposed, hedged or unsaid."""
    passive: bool
    pronoun_subject: bool
    """Its subject is a pronoun (or absent): it may be anyone the claim names."""
    nominal: bool = False
    """A deed named by a noun someone is accused of ("в убийстве жены"): its lemma is the
    noun's, never asserted."""


@dataclass(frozen=True)
class RuReading:
    """A text's clauses (those whose head is a predicate) and its content lemmas."""

    clauses: tuple[RuClause, ...]
    main: RuClause | None
    """The root clause (None: the parse has no predicate root)."""
    content: frozenset[str]


@dataclass(frozen=True)
class RuFinding:
    """A check that decides: its name, label and the sentence that shows it."""

    rule: str
    label: Label
    sentence: str


@dataclass(frozen=True)
class _Token:
    id: int
    text: str
    head: int
    rel: str
    lemma: str
    pos: str


class RussianParser:
    """Slovnet's syntax model and pymorphy3, loaded on first use (about 3 s) and shared by
    threads (:meth:`available` says whether they are installed)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None
        self._lemmas: dict[str, tuple[str, str]] = {}

    @staticmethod
    def available() -> bool:
        """Whether natasha's model files, slovnet and pymorphy3 are installed."""
        return all(
            importlib.util.find_spec(name) is not None
            for name in ("natasha", "slovnet", "navec", "pymorphy3", "razdel")
        )

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._loaded is None:
                import pymorphy3
                from navec import Navec
                from slovnet import Syntax

                spec = importlib.util.find_spec("natasha")
                assert spec is not None and spec.submodule_search_locations
                data = Path(next(iter(spec.submodule_search_locations))) / "data"
                syntax = Syntax.load(str(data / _SYNTAX))
                syntax.navec(Navec.load(str(data / _NAVEC)))
                self._loaded = (syntax, pymorphy3.MorphAnalyzer())
        return self._loaded

    def _lemma(self, morph: Any, word: str) -> tuple[str, str]:
        key = word.lower()
        if key not in self._lemmas:
            if len(self._lemmas) >= _LEMMA_CACHE:  # a long-running service reads many words
                self._lemmas.clear()
            parse = morph.parse(key)[0]
            self._lemmas[key] = (parse.normal_form.replace("ё", "е"), str(parse.tag.POS or ""))
        return self._lemmas[key]

    def tokens(self, text: str) -> list[_Token]:
        """``text``'s tokens with their heads, relations and lemmas."""
        from razdel import tokenize

        syntax, morph = self._load()
        words = [t.text for t in tokenize(text)][:200]
        if not words:
            return []
        parsed = syntax(words).tokens
        out = []
        for token in parsed:
            lemma, pos = self._lemma(morph, token.text)
            out.append(_Token(int(token.id), token.text, int(token.head_id), token.rel, lemma, pos))
        return out

    def read(self, text: str) -> RuReading:
        """The clauses of ``text`` (one sentence)."""
        return _reading(self.tokens(text))


def _asked(tokens: Sequence[_Token]) -> frozenset[int]:
    """The tokens between each "?" and where its question starts (``_QUESTION_STARTS``, or a
    comma before "но", "а", "и": "Мэр ушёл, но почему?"); the parse often hangs a "?" on
    the sentence's root whatever it asks."""
    asked: set[int] = set()
    start = 0
    for index, token in enumerate(tokens):
        if token.text == "?":
            asked.update(t.id for t in tokens[start:index])
        joins = token.text == "," and index + 1 < len(tokens) and tokens[index + 1].rel == "cc"
        if token.text in _QUESTION_STARTS or token.text == "?" or joins:
            start = index + 1
    return frozenset(asked)


class _Tree:
    """A parsed sentence: its tokens, by id and by head."""

    def __init__(self, tokens: Sequence[_Token]) -> None:
        self.tokens = tokens
        self.by_id = {t.id: t for t in tokens}
        self._children: dict[int, list[_Token]] = {}
        self.question = bool(tokens) and tokens[0].lemma in _QUESTION_OPENERS
        self.asked = _asked(tokens)
        """The ids of the tokens inside a question ("Означает ли …, что …?")."""
        for token in tokens:
            self._children.setdefault(token.head, []).append(token)

    def children(self, head: int) -> list[_Token]:
        return self._children.get(head, [])

    def phrase(self, token: _Token) -> set[str]:
        """A filler's lemma and those of the names joined to it ("Владимир Путин")."""
        names = {c.lemma for c in self.children(token.id) if c.rel in _NAME_PARTS}
        return {token.lemma} | names

    def negated(self, head: int) -> bool:
        return any(c.lemma in _NEGATIONS for c in self.children(head))


def _own_status(tree: _Tree, head: _Token) -> bool:
    """Whether the clause headed by ``head`` is asserted by its own words and its frame."""
    children = tree.children(head.id)
    if tree.question or head.id in tree.asked:  # a question states nothing it asks
        return False
    if any(c.lemma in _UNASSERTING_MARKS or c.text.lower() in _UNASSERTING_MARKS for c in children):
        return False
    if head.rel == "conj":  # hedges and frames are its first conjunct's
        return True
    if any(c.text.lower() in _HEDGES for c in children if c.rel != "nsubj"):
        return False
    if _reports(head):
        return True
    if any(_believed_aside(tree, c) for c in children):
        return False
    frame = tree.by_id.get(head.head) if head.rel in _COMPLEMENTS else None
    if frame is not None:
        if frame.lemma in BELIEVING:
            return False
        if frame.lemma in SAYING and tree.negated(frame.id):
            return False
        # "стоит отметить, что …", "могу сказать, что …" still say it; "не могу сказать" does not
        saying = head.lemma in SAYING and not tree.negated(frame.id)
        if frame.lemma in INTENDING and head.pos == "INFN" and not saying:
            return False
    return True


def _reports(head: _Token) -> bool:
    """A saying or believing verb beside what it frames ("«…», - сказал он", "«…», - считает
    он"): the parse hangs it on the quote's verb, but it is the frame, not framed by it."""
    return head.rel == "parataxis" and head.lemma in SAYING | BELIEVING


def _believed_aside(tree: _Tree, token: _Token) -> bool:
    """A believing aside on a clause ("Как считают силовики, он не платил", "По мнению
    журналистов, мэр ушёл", "«…», - считает он"): the clause is the believer's, not the page's.
    An aside names only who believes; a believing verb with an object or a clause of its own
    ("…; аналитики считают это ошибкой") is a statement beside it, not a frame."""
    return (
        token.rel == "parataxis"
        and token.lemma in BELIEVING
        and not any(c.rel in _OBJECTS | _COMPLEMENTS for c in tree.children(token.id))
    )


def _asserted(tree: _Tree, head: _Token) -> bool:
    """Asserted here and in every clause above it (a conjunct shares its first's frame)."""
    seen: set[int] = set()
    current: _Token | None = head
    while current is not None and current.id not in seen:
        seen.add(current.id)
        if not _own_status(tree, current):
            return False
        if (
            current.head == 0
            or current.rel not in _COMPLEMENTS | {"advcl", "conj"}
            or _reports(current)
        ):
            break
        current = tree.by_id.get(current.head)
    return True


def _is_predicate(tree: _Tree, token: _Token) -> bool:
    if token.pos in {"VERB", "INFN", "PRTS", "ADJS", "PRED"} and token.rel != "amod":
        return True
    return token.rel in {"root", "ccomp", "csubj", "conj", "advcl", "parataxis"} and any(
        c.rel in _SUBJECTS | _PASSIVE_SUBJECTS for c in tree.children(token.id)
    )


def _reading(tokens: Sequence[_Token]) -> RuReading:
    tree = _Tree(tokens)
    clauses = []
    main = None
    for token in tokens:
        if not _is_predicate(tree, token):
            continue
        subjects: set[str] = set()
        objects: set[str] = set()
        pronoun = True
        passive = False
        for child in tree.children(token.id):
            if child.rel in _SUBJECTS:
                subjects |= tree.phrase(child)
                pronoun = pronoun and child.pos in {"NPRO", ""}
            elif child.rel in _PASSIVE_SUBJECTS:
                passive = True
                objects |= tree.phrase(child)
            elif child.rel in _OBJECTS:
                objects |= tree.phrase(child)
        clause = RuClause(
            lemma=token.lemma,
            subjects=frozenset(subjects),
            objects=frozenset(objects),
            negated=tree.negated(token.id),
            asserted=_asserted(tree, token),
            passive=passive,
            pronoun_subject=pronoun,
        )
        clauses.append(clause)
        if token.head == 0 and main is None:
            main = clause
    clauses.extend(_accusations(tree))
    content = frozenset(
        t.lemma for t in tokens if t.pos not in {"NPRO", "PREP", "CONJ", "PRCL", "INTJ", ""}
    )
    return RuReading(tuple(clauses), main, content)


def _accusations(tree: _Tree) -> list[RuClause]:
    """The deeds the sentence accuses someone of ("подозревают [в нанесении] ранений брату"):
    a noun after "в" on an ``ACCUSING`` word, with its genitive and dative words as objects."""
    found = []
    for token in tree.tokens:
        frame = tree.by_id.get(token.head)
        if token.pos != "NOUN" or frame is None or frame.lemma not in ACCUSING:
            continue
        if not any(c.rel == "case" and c.lemma == "в" for c in tree.children(token.id)):
            continue
        objects = {
            w for c in tree.children(token.id) if c.rel in {"nmod", "iobj"} for w in tree.phrase(c)
        }
        found.append(
            RuClause(
                lemma=token.lemma,
                subjects=frozenset(),
                objects=frozenset(objects),
                negated=False,
                asserted=False,
                passive=False,
                pronoun_subject=True,
                nominal=True,
            )
        )
    return found


def _names(verb: str, noun: str) -> bool:
    """Whether ``noun`` names the deed of ``verb`` ("убийство" of "убить", "нанесение" of
    "нанести", "похищение" of "похитить"): its stem, less the two letters that alternate."""
    stem = re.sub("(ть|ти|чь)(ся|сь)?$", "", verb)
    return stem != verb and noun.startswith(stem[: max(3, len(stem) - 2)])


def _same_predicate(claim: RuClause, clause: RuClause) -> bool:
    if clause.nominal:
        return _names(claim.lemma, clause.lemma)
    return clause.lemma == claim.lemma


def _overlap(claimed: frozenset[str], stated: frozenset[str]) -> bool:
    return not claimed or not stated or bool(claimed & stated)


def _same_arguments(claim: RuClause, other: RuClause) -> bool:
    """No role both fill with different words (a pronoun or a dropped subject may be anyone)."""
    subjects = other.pronoun_subject or _overlap(claim.subjects, other.subjects)
    return subjects and _overlap(claim.objects, other.objects)


def _swapped(claim: RuClause, other: RuClause) -> bool:
    if claim.passive or other.passive or not (claim.subjects and claim.objects):
        return False
    return bool(
        claim.subjects & other.objects
        and claim.objects & other.subjects
        and not claim.subjects & other.subjects
    )


def find(parser: RussianParser, claim: str, sentences: Iterable[str]) -> RuFinding | None:
    """The check that decides ``claim`` against the evidence ``sentences`` (module docstring),
    or None when none does."""
    if len(claim.split()) > MAX_CLAIM_WORDS:
        return None
    claimed = parser.read(claim)
    main = claimed.main
    if main is None or not main.asserted or not claimed.content:
        return None
    negated: list[str] = []
    held: list[str] = []
    swapped: list[str] = []
    for sentence in sentences:
        reading = parser.read(sentence)
        for clause in reading.clauses:
            if not _same_predicate(main, clause):
                continue
            # a deed named by its noun holds the claim's verb
            content = reading.content | {main.lemma} if clause.nominal else reading.content
            share = len(claimed.content & content) / len(claimed.content)
            if not _same_arguments(main, clause):
                if share == 1.0 and _swapped(main, clause):
                    swapped.append(sentence)
            elif not clause.asserted:
                if share >= ABOUT_SHARE:
                    held.append(sentence)
            elif clause.negated == main.negated:
                return None  # stated somewhere: the model's verdict stands
            elif share == 1.0:
                negated.append(sentence)
    if negated:
        return RuFinding("negated", Label.CONTRADICTED, negated[0])
    if held:
        return RuFinding("commitment", Label.NOT_FOUND, held[0])
    if swapped:
        return RuFinding("roles", Label.NOT_FOUND, swapped[0])
    return None
