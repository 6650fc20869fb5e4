"""One failure stays one: a citation whose judging raises (a bug) is reported with reason
``internal_error`` and counted like a judge failure; the rest of a batch, an answer or a claim
completes, the report is written, and a resumed batch judges that citation again."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from batch_fixture import city_page
from batch_helpers import score
from citation_verifier.answers.check import check_answer
from citation_verifier.answers.models import AnswerRequest
from citation_verifier.batch.engine import LocalRunner
from citation_verifier.batch.reports import write_report
from citation_verifier.batch.summary import summary_lines
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.judge.base import Judge, Judgement
from citation_verifier.models import Label, Reason, VerifyRequest
from citation_verifier.passages import Passage
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier, make_judge

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
BROKEN = "City 1 has a population of 1000 people."


class BrokenOnOneClaim:
    """The configured judge, except that judging ``BROKEN`` raises as a bug would."""

    def __init__(self, inner: Judge) -> None:
        self._inner = inner

    @property
    def name(self) -> str:
        return self._inner.name

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        if claim == BROKEN:
            raise IndexError("index 3 is out of bounds for axis 0 with size 3")
        return await self._inner.judge(claim, passages)


def _site(serve: Serve) -> LoopbackSite:
    return serve({f"/city/{n}": Page(city_page(n)) for n in range(3)})


def _records(site: LoopbackSite, path: Path) -> Path:
    lines = [
        {"id": f"c{n}", "claim": f"City {n} has a population of {n * 1000} people.", "urls": [url]}
        for n, url in enumerate(site.url(f"/city/{n}") for n in range(3))
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


async def test_a_batch_record_whose_judging_raises_still_gets_its_report_written(
    serve: Serve, tmp_path: Path, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = _site(serve)
    inputs = _records(site, tmp_path / "in.jsonl")
    checkpoint = tmp_path / "report.csv.checkpoint.jsonl"
    broken = BrokenOnOneClaim(make_judge(settings, embedder))
    outcome = await score(
        inputs, checkpoint, LocalRunner(settings, embedder=embedder, judge=broken)
    )
    report = tmp_path / "report.json"
    write_report(report, outcome.rows, outcome.summary, "json", outcome.answers)
    rows = {row["id"]: row for row in json.loads(report.read_text("utf-8"))["citations"]}
    assert rows["c1"]["reason"] == Reason.INTERNAL_ERROR
    assert "IndexError" in rows["c1"]["detail"]
    assert rows["c0"]["label"] == rows["c2"]["label"] == Label.SUPPORTED
    assert outcome.summary.judge_failed == 1  # not a result: out of the precision
    assert "citation_precision=1.0000 (2/2)" in summary_lines(outcome.summary)

    resumed = await score(
        inputs,
        checkpoint,
        LocalRunner(settings, embedder=embedder, judge=make_judge(settings, embedder)),
        resume=True,
    )
    assert (resumed.reused, resumed.scored) == (2, 1)  # only the failed citation again
    assert [row.verdict.label for row in resumed.rows] == [Label.SUPPORTED] * 3


async def test_an_answer_with_one_citation_whose_judging_raises_is_still_checked(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = _site(serve)
    answer = (
        f"City 0 has a population of 0 people [1]. {BROKEN} [2]. "
        f"City 2 has a population of 2000 people [3].\n\nSources:\n"
        + "".join(f"[{n + 1}] {site.url(f'/city/{n}')}\n" for n in range(3))
    )
    broken = BrokenOnOneClaim(make_judge(settings, embedder))
    async with Verifier(settings, embedder=embedder, judge=broken) as verifier:
        result = await check_answer(verifier, AnswerRequest(answer=answer))
    reasons = [s.citations[0].reason for s in result.statements]
    assert reasons == [None, Reason.INTERNAL_ERROR, None]
    assert result.citation_precision == 1.0  # 2 of the 2 citations that are results


async def test_a_claim_with_one_url_whose_judging_raises_still_gets_the_others(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = _site(serve)
    broken = BrokenOnOneClaim(make_judge(settings, embedder))
    async with Verifier(settings, embedder=embedder, judge=broken) as verifier:
        result = await verifier.verify(
            VerifyRequest(claim=BROKEN, urls=[site.url("/city/1"), site.url("/city/404")])
        )
    assert [c.reason for c in result.citations] == [Reason.INTERNAL_ERROR, "http_404"]
