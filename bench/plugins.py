"""Benchmark of the evaluation-framework plug-ins (docs/INTEGRATIONS.md): the same answers scored
through each framework and through our own batch, each a fresh process (interpreter, framework
and model loading included), on loopback pages, the embedded checker. Prints the seconds of each
run, its ratio to the batch's, and whether each gave the batch's statement labels.
``inspect-bare`` is Inspect AI scoring the same samples with a scorer that checks nothing: the
framework's own cost, of which the ``inspect`` run's is the sum with ours.

Run it with the plug-ins' Python (``make plugins``):

    .venv-plugins/bin/python bench/plugins.py [--answers 100] [--only ragas,deepeval] [--rounds 3]

Run to run, the same job's time varies by about a tenth on 2 cores; ``--rounds`` repeats the
batch and every run and prints the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median

import httpx

from citation_verifier.demo.loopback import LoopbackSite, Page

ROOT = Path(__file__).resolve().parents[1]
PROMPTFOO = ROOT / ".plugins-node" / "node_modules" / ".bin" / "promptfoo"
_NUMBERED = re.compile(r"^\d+\. (\w+): ")
TOWNS = ("Arden", "Casby", "Dunmore", "Elling", "Farrow")
PAGES = {
    f"/bridges/{town.lower()}": (
        f"<html><head><title>The {town} Bridge</title></head><body><article><h1>The {town} "
        f"Bridge</h1><p>The {town} Bridge crosses the river Vell. The crossing is {2 + i}.5 "
        f"kilometres long and carries {2 * (i + 1)} lanes of traffic. It opened to traffic in "
        f"May {2010 + i} after {3 + i} years of construction.</p><p>Engineers from the firm "
        f"{town} & Brook designed the bridge. The firm was founded in {1950 + i}.</p></article>"
        "</body></html>"
    )
    for i, town in enumerate(TOWNS)
}


def answers(base: str, count: int) -> list[str]:
    """``count`` distinct answers, three statements each, citing two of the pages."""
    out = []
    for n in range(count):
        i, j = n % len(TOWNS), (n + 1) % len(TOWNS)
        town, other = TOWNS[i], TOWNS[j]
        length = f"{2 + i}.5" if n % 3 else f"{3 + i + n}.5"  # a third of them wrong
        out.append(
            f"The {town} Bridge is {length} kilometres long and was designed by {town} & Brook "
            f"[1]. The {other} Bridge opened to traffic in May {2010 + j} [1]. Answer {n} also "
            f"says the {town} Bridge carries {2 * (i + 1)} lanes of traffic [2].\n\n"
            f"Sources:\n[1] {base}/bridges/{town.lower()}\n[2] {base}/bridges/{other.lower()}\n"
        )
    return out


# Inspect AI's runs: the same solver and task, with ``scorer`` (defining citation_verification)
# and what becomes of the log (``labels``).
_INSPECT = """
        from inspect_ai import Task, eval
        from inspect_ai.dataset import Sample
        from inspect_ai.model import ModelOutput
        from inspect_ai.solver import solver
        {scorer}
        @solver
        def answered():
            async def solve(state, generate):
                state.output = ModelOutput.from_content("bench", state.metadata["answer"])
                return state
            return solve

        task = Task(dataset=[Sample(input=str(n), metadata={{"answer": a}})
                             for n, a in enumerate(ANSWERS)],
                    solver=answered(), scorer=citation_verification())
        log = eval(task, model="none", log_dir="logs", display="none", max_samples=8)[0]
        {labels}
"""
RUNNERS = {
    "ragas": """
        from citation_verifier.integrations.ragas import CitationVerification
        metric = CitationVerification()
        results = metric.batch_score([{"response": a} for a in ANSWERS])
        labels = [[s.overall.value for s in metric.last_results[a].statements] for a in ANSWERS]
    """,
    "deepeval": """
        from deepeval import evaluate
        from deepeval.evaluate.configs import AsyncConfig, DisplayConfig
        from deepeval.test_case import LLMTestCase
        from citation_verifier.integrations.deepeval import CitationMetric
        metric = CitationMetric()
        cases = [LLMTestCase(input=str(n), actual_output=a) for n, a in enumerate(ANSWERS)]
        out = evaluate(cases, [metric], async_config=AsyncConfig(max_concurrent=8),
                       display_config=DisplayConfig(print_results=False, show_indicator=False))
        import re
        by_output = {t.actual_output: t for t in out.test_results}
        # DeepEval's results keep the metric's reason: one "N. label: claim" line per statement.
        labels = [re.findall(r"^\\d+\\. (\\w+): ", by_output[a].metrics_data[0].reason, re.M)
                  for a in ANSWERS]
    """,
    "inspect": _INSPECT.format(
        scorer="""
        from citation_verifier.integrations.inspect_ai import citation_verification
        """,
        labels="""
        by_id = {int(s.input): s for s in log.samples}
        scores = [by_id[n].scores["citation_verification"] for n in range(len(ANSWERS))]
        labels = [[st["overall"] for st in score.metadata["statements"]] for score in scores]
        """,
    ),
    # Inspect AI alone: the same samples scored by a scorer that checks nothing (its import,
    # start, sample loop and log: the part of the "inspect" run that is not ours).
    "inspect-bare": _INSPECT.format(
        scorer="""
        from inspect_ai.scorer import Score, mean, scorer

        @scorer(metrics=[mean()])
        def citation_verification():
            async def score(state, target):
                return Score(value=1.0)
            return score
        """,
        labels="labels = None",
    ),
    "langsmith": """
        from uuid import uuid4
        from langsmith import evaluate
        from langsmith.schemas import Example
        from citation_verifier.integrations.langsmith import CitationEvaluator
        examples = [Example(id=uuid4(), dataset_id=uuid4(), inputs={"n": n})
                    for n in range(len(ANSWERS))]
        rows = evaluate(lambda inputs: {"answer": ANSWERS[inputs["n"]]}, data=examples,
                        evaluators=[CitationEvaluator()], upload_results=False, max_concurrency=8)
        found = {r["example"].inputs["n"]: r["evaluation_results"]["results"][0] for r in rows}
        labels = [[s["overall"] for s in found[n].extra["statements"]] for n in range(len(ANSWERS))]
    """,
}


def _env(folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "ALLOW_PRIVATE_URLS": "true",
        "JUDGE_PROVIDER": "checker",
        "LANGUAGE_JUDGE": "none",
        "ARCHIVE_FALLBACK": "never",
        "AUDIT_ENABLED": "false",
        "CACHE_DIR": str(folder / "cache"),
        "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
        "RAGAS_DO_NOT_TRACK": "true",
        "LANGSMITH_TRACING": "false",
        "LANGSMITH_ENDPOINT": "http://127.0.0.1:9",
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_CONFIG_DIR": str(folder / "promptfoo"),
        "PROMPTFOO_PYTHON": sys.executable,
    }


@dataclass(frozen=True)
class Took:
    """A run's wall-clock seconds and the CPU-seconds of the processes it started (these
    vary less with the machine's other load)."""

    wall: float
    cpu: float


def children_cpu() -> float:
    """CPU-seconds of this process's finished children so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(args: list[str], folder: Path) -> Took:
    start, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run(args, cwd=folder, env=_env(folder), capture_output=True, text=True)
    took = Took(time.perf_counter() - start, children_cpu() - cpu)
    if done.returncode != 0:
        raise SystemExit(f"{args[:3]} failed:\n{done.stderr[-3000:]}")
    return took


def batch(folder: Path, texts: list[str]) -> tuple[Took, list[list[str]]]:
    """Our own batch over the answers: seconds and each answer's statement labels."""
    inputs = folder / "answers.jsonl"
    inputs.write_text(
        "".join(json.dumps({"id": str(n), "answer": a}) + "\n" for n, a in enumerate(texts))
    )
    report = folder / "batch.json"
    command = [
        sys.executable,
        "-m",
        "citation_verifier",
        "batch",
        str(inputs),
        "--out",
        str(report),
    ]
    took = _timed([*command, "--format", "json", "--quiet"], folder)
    document = json.loads(report.read_text())
    found = {a["id"]: [s["overall"] for s in a["statements"]] for a in document["answers"]}
    return took, [found[str(n)] for n in range(len(texts))]


def framework(name: str, folder: Path, texts: list[str]) -> tuple[Took, list[list[str]] | None]:
    """The answers through one framework: seconds and the statement labels it reported (None
    from a run that checks nothing)."""
    script = folder / f"run_{name}.py"  # not ragas.py: it would shadow the package
    body = textwrap.dedent(RUNNERS[name])
    script.write_text(
        f"import json\nANSWERS = json.load(open('answers.json'))\n{body}\n"
        "json.dump(labels, open('labels.json', 'w'))\n"
    )
    (folder / "answers.json").write_text(json.dumps(texts))
    took = _timed([sys.executable, str(script)], folder)
    return took, json.loads((folder / "labels.json").read_text())


def promptfoo(folder: Path, texts: list[str], webhook: bool) -> tuple[Took, list[list[str]]]:
    """The answers as promptfoo tests (echo provider; the Python assertion, or the ``webhook``
    assertion answered by the service's ``/promptfoo``), checked on a ``citation-verifier
    serve`` started for the run (its start is in the time)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    if webhook:
        assertion = f"type: webhook\n      value: {url}/promptfoo"
    else:
        assertion = "type: python\n      value: file://check.py"
        (folder / "check.py").write_text(
            "from citation_verifier.integrations.promptfoo import get_assert\n"
        )
    tests = "\n".join(f"  - vars: {{answer: {json.dumps(a)}}}" for a in texts)
    (folder / "promptfooconfig.yaml").write_text(
        'prompts: ["{{answer}}"]\nproviders: [echo]\n'
        f"defaultTest:\n  assert:\n    - {assertion}\ntests:\n{tests}\n"
    )
    env = {
        **_env(folder),
        "FETCH_CACHE_TTL_S": "3600",
        "CITATION_VERIFIER_URL": url,
        "WEBHOOK_TIMEOUT": "300000",
    }
    start, cpu = time.perf_counter(), children_cpu()
    service = subprocess.Popen(
        [sys.executable, "-m", "citation_verifier", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            try:
                if httpx.get(url + "/ready", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        args = [str(PROMPTFOO), "eval", "-c", "promptfooconfig.yaml", "-o", "out.json"]
        done = subprocess.run(
            [*args, "--no-cache", "-j", "8"], cwd=folder, env=env, capture_output=True, text=True
        )
        wall = time.perf_counter() - start  # the service's stop is not part of the scoring
    finally:
        service.terminate()
        service.wait(timeout=30)
    took = Took(wall, children_cpu() - cpu)
    if done.returncode not in (0, 100):  # 100: some tests did not pass
        raise SystemExit(f"promptfoo failed:\n{done.stderr[-3000:]}")
    results = json.loads((folder / "out.json").read_text())["results"]["results"]
    by_answer = {}
    for r in results:
        graded = r["gradingResult"]["componentResults"][0]
        if webhook:  # the statements are the reason's numbered lines
            lines = graded["reason"].splitlines()
            labels = [m[1] for line in lines if (m := _NUMBERED.match(line))]
        else:
            labels = [c["reason"].split(":")[0] for c in graded["componentResults"]]
        by_answer[r["vars"]["answer"]] = labels
    return took, [by_answer[a] for a in texts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100)
    parser.add_argument(
        "--only",
        default="ragas,deepeval,inspect,inspect-bare,promptfoo,promptfoo-webhook,langsmith",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="rounds of batch + each run (medians printed)"
    )
    options = parser.parse_args()
    names = options.only.split(",")
    took: dict[str, list[Took]] = {name: [] for name in ["batch", *names]}
    ratios: dict[str, list[Took]] = {name: [] for name in names}
    same: dict[str, int] = {}
    routes = {path: Page(html) for path, html in PAGES.items()}
    with LoopbackSite(routes) as site, tempfile.TemporaryDirectory() as tmp:
        texts = answers(site.base_url, options.answers)
        for round_ in range(options.rounds):
            base_dir = Path(tmp) / f"batch-{round_}"
            base_dir.mkdir()
            base, base_labels = batch(base_dir, texts)
            took["batch"].append(base)
            for name in names:
                folder = Path(tmp) / f"{name}-{round_}"
                folder.mkdir()
                labels: list[list[str]] | None
                if name.startswith("promptfoo"):
                    run, labels = promptfoo(folder, texts, webhook=name == "promptfoo-webhook")
                else:
                    run, labels = framework(name, folder, texts)
                took[name].append(run)
                ratios[name].append(Took(run.wall / base.wall, run.cpu / base.cpu))
                if labels is not None:  # a run that checks nothing has none
                    agree = sum(a == b for a, b in zip(labels, base_labels, strict=True))
                    same[name] = min(same.get(name, agree), agree)
    print(f"{options.answers} answers, {3 * options.answers} statements, 2 cores, ", end="")
    print(f"{options.rounds} round(s): medians; each ratio against its round's batch")
    print(
        f"{'run':<18} {'seconds':>8} {'ratio':>6}  {'ratio per round':<16} "
        f"{'CPU-s':>6} {'ratio':>6}  same labels as the batch"
    )
    for name, runs in took.items():
        wall, cpu = median(r.wall for r in runs), median(r.cpu for r in runs)
        if name == "batch":
            print(f"{name:<18} {wall:>8.1f} {1.0:>6.2f}  {'':<16} {cpu:>6.1f} {1.0:>6.2f}  -")
            continue
        rounds = " ".join(f"{r.wall:.2f}" for r in ratios[name])
        wall_ratio = median(r.wall for r in ratios[name])
        cpu_ratio = median(r.cpu for r in ratios[name])
        print(
            f"{name:<18} {wall:>8.1f} {wall_ratio:>6.2f}  {rounds:<16} {cpu:>6.1f} "
            f"{cpu_ratio:>6.2f}  {f'{same[name]}/{len(texts)}' if name in same else '-'}"
        )


if __name__ == "__main__":
    main()
