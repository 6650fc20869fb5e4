"""`citation_verifier.Checker`: one object, models loaded once, sync and async, claims and
answers, on real loopback pages."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from pydantic import ValidationError

import citation_verifier
from citation_verifier.answers.models import StatementLabel
from citation_verifier.checker_api import Checker, CheckerClosedError
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.models import Label
from citation_verifier.settings import Settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
WATER = (
    "<html><head><title>Water</title></head><body><article><h1>Water</h1><p>At sea level, "
    "water boils at 100 degrees Celsius. It freezes at 0 degrees Celsius.</p></article>"
    "</body></html>"
)
TOWER = (
    "<html><head><title>Tower</title></head><body><article><h1>The tower</h1><p>The Eiffel "
    "Tower is about 330 metres tall. It was completed in 1889.</p></article></body></html>"
)


@pytest.fixture
def site(serve: Serve) -> LoopbackSite:
    return serve({"/water": Page(WATER), "/tower": Page(TOWER)})


def test_the_package_exports_checker_without_loading_the_pipeline_on_import() -> None:
    code = (
        "import sys, citation_verifier; "
        "print('citation_verifier.verifier' in sys.modules); "
        "citation_verifier.Checker; print('citation_verifier.verifier' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
    assert citation_verifier.Checker is Checker


def test_check_and_check_answer_share_one_verifier_and_fetch_a_page_once(
    site: LoopbackSite, settings: Settings
) -> None:
    with Checker(settings) as checker:
        first = checker.check(
            "Water boils at 100 degrees Celsius at sea level.", [site.url("/water")]
        )
        loaded = site.hits["/water"]
        again = checker.check(
            "Water boils at 100 degrees Celsius at sea level.", [site.url("/water")]
        )
        answer = checker.check_answer(
            "Water boils at 100 degrees Celsius at sea level [1]. "
            "The Eiffel Tower is about 330 metres tall [2].",
            [site.url("/water"), site.url("/tower")],
        )
    assert first.overall == again.overall == Label.SUPPORTED
    assert first.citations[0].evidence_quote == "At sea level, water boils at 100 degrees Celsius."
    assert [s.overall for s in answer.statements] == [StatementLabel.SUPPORTED] * 2
    assert answer.citation_precision == 1.0
    # Three claims cited /water; the page was loaded once while fresh.
    assert site.hits["/water"] == loaded


async def test_the_async_calls_work_from_another_running_loop(
    site: LoopbackSite, settings: Settings
) -> None:
    async with Checker(settings) as checker:
        claims = [
            "Water boils at 100 degrees Celsius at sea level.",
            "Water freezes at 50 degrees.",
        ]
        results = await asyncio.gather(*(checker.acheck(c, [site.url("/water")]) for c in claims))
        answer = await checker.acheck_answer(
            "The Eiffel Tower is about 330 metres tall [1].", [site.url("/tower")]
        )
    assert [r.overall == Label.SUPPORTED for r in results] == [True, False]
    assert answer.statements[0].overall == StatementLabel.SUPPORTED


def test_threads_can_share_one_checker(site: LoopbackSite, settings: Settings) -> None:
    labels: list[Label] = []
    with Checker(settings) as checker:

        def one() -> None:
            labels.append(
                checker.check("The tower is about 330 metres tall.", [site.url("/tower")]).overall
            )

        threads = [threading.Thread(target=one) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert labels == [Label.SUPPORTED] * 4


def test_checks_made_while_the_checker_warms_up_in_the_background_wait_for_its_models(
    site: LoopbackSite, settings: Settings
) -> None:
    with Checker(settings, judge_provider="checker") as checker:
        checker.warm_up(wait=False)
        result = checker.check(
            "Water boils at 100 degrees Celsius at sea level.", [site.url("/water")]
        )
        checker.warm_up()  # loaded already: returns once the made-up pair is judged again
    assert result.overall == Label.SUPPORTED
    closing = Checker(settings, judge_provider="checker")
    closing.warm_up(wait=False)
    closing.close()  # a warm-up in flight does not keep it open
    with pytest.raises(CheckerClosedError):
        closing.warm_up()


def test_overrides_are_settings_validated_like_the_environments(settings: Settings) -> None:
    with Checker(settings, review_below=1.0) as checker:
        assert checker.settings.review_below == 1.0
    with pytest.raises(ValidationError, match="review_below"):
        Checker(settings, review_below=2.0)


def test_bad_input_is_refused_in_the_callers_thread_and_a_closed_checker_says_so(
    settings: Settings,
) -> None:
    checker = Checker(settings)
    with pytest.raises(ValidationError, match="urls"):
        checker.check("Water boils.", ["not a url"])
    checker.close()
    checker.close()  # idempotent
    with pytest.raises(CheckerClosedError, match="closed"):
        checker.check("Water boils.", ["http://127.0.0.1:9/"])


def test_the_readmes_python_example_runs_as_written(
    site: LoopbackSite, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    start = readme.index("```python\nfrom citation_verifier import Checker")
    code = readme[start + len("```python\n") : readme.index("```", start + 10)]
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")  # the example's page is on loopback here
    exec(compile(code.replace("https://...", site.url("/water")), "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("supported [(<Label.SUPPORTED")
    assert printed[1] == "1.0 [<StatementLabel.SUPPORTED: 'supported'>]"
