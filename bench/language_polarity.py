"""A polarity check for the other-language judge, measured on ``tune`` rows before it ships.

The embedded LLM calls a claim supported when the evidence says its words with a negation
added ("не кипит" against "кипит"), as the checker did in English. This reads each row once with
the other-language judge (as ``bench/language_tuning.py`` does), then scores its verdicts with
and without the check: a supported verdict whose evidence sentence negates a content word the
claim states plainly, or the other way round, becomes contradicted. For each file: how many
verdicts the check changes, how many of those are right, and balanced accuracy before and after.

    python bench/language_polarity.py /path/to/multilingual/*.jsonl.gz --per-file 40 [--split tune]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from citation_verifier.evaluate import Prediction, read_rows, score, stratified_sample
from citation_verifier.judge.embedded import quote_sentence
from citation_verifier.judge.exact_checks import opposite_polarity
from citation_verifier.judge.providers import lexical_llm_judge
from citation_verifier.language import LanguageIdentifier
from citation_verifier.models import Label
from citation_verifier.passages import split_passages
from citation_verifier.retrieve import TermsEmbedder, top_passages
from citation_verifier.settings import Settings
from citation_verifier.terms import analyse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--per-file", type=int, default=40)
    parser.add_argument("--split", default="tune")
    args = parser.parse_args()
    settings = Settings()
    judge = lexical_llm_judge(settings)
    identifier = LanguageIdentifier()
    print("| file | n | changed | right | balanced acc. before | after |")
    print("|---|---|---|---|---|---|")
    for path in args.files:
        rows, _ = read_rows(path, args.split)
        before: list[Prediction] = []
        after: list[Prediction] = []
        changed = right = 0
        for row in stratified_sample(rows, args.per_file, 13):
            passages = split_passages(row.source_text, settings.passage_max_words)
            best = top_passages(row.claim, passages, TermsEmbedder(), settings.top_k, "lexical")
            reading = judge.read(row.claim, best)
            label = Label.NOT_FOUND if reading is None else judge.decide(reading)[0]
            final = label
            if reading is not None and label == Label.SUPPORTED:
                language = identifier.page(row.source_text) or "en"
                quote = quote_sentence(reading.evidence, analyse(row.claim).numbers).text
                if opposite_polarity(row.claim, quote, language):
                    final = Label.CONTRADICTED
                    changed += 1
                    right += row.label != Label.SUPPORTED
            before.append(Prediction(row.id, row.label.value, label.value, None, 0.0))
            after.append(Prediction(row.id, row.label.value, final.value, None, 0.0))
        was, now = score(before, False), score(after, False)
        print(
            f"| {path.name} | {len(before)} | {changed} | {right} | "
            f"{was.balanced_accuracy:.3f} | {now.balanced_accuracy:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
