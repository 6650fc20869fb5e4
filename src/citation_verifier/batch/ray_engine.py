"""``--engine ray``: the same batch on a Ray cluster (optional extra: ``pip install '.[ray]'``).

The driver (:func:`~citation_verifier.batch.engine.run_batch`) stays in this process: it reads
the input, plans jobs, holds the per-host politeness slots and writes the checkpoint and the
reports, so outputs and ``--resume`` behave exactly as with the local engine. Only the work
moves: each job (one URL, its claims) runs on a pool of async Ray actors, each holding its own
Verifier and embedding cache. ``RAY_ADDRESS`` joins an existing cluster (Ray reads it itself);
otherwise a local Ray starts with this machine's CPUs, or ``num_cpus``.
"""

from __future__ import annotations

import importlib
import os
from contextlib import AbstractAsyncContextManager, nullcontext
from datetime import datetime
from typing import Any

from citation_verifier.batch.engine import LocalRunner, Runner, UrlJob
from citation_verifier.errors import ConfigurationError
from citation_verifier.models import UrlVerdict
from citation_verifier.settings import Settings


def _ray() -> Any:
    # Imported on demand (never at package import); typed as Any: ray is an optional extra.
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ConfigurationError(
            "the Ray engine needs the optional extra: pip install 'citation-verifier[ray]'"
        ) from None


class BatchWorker:
    """Runs jobs inside a Ray actor: one LocalRunner (Verifier, cached MiniLM) per actor."""

    def __init__(self, settings: Settings) -> None:
        self._runner = LocalRunner(settings)

    async def run(
        self, url: str, claims: list[str], cited_at: str | None = None, compare: bool = False
    ) -> list[dict[str, Any]]:
        """Verdicts for ``claims`` on ``url``, as JSON-ready dicts (plain data crosses Ray)."""
        # Politeness slots live in the driver; the actor runs the job as it arrives.
        when = None if cited_at is None else datetime.fromisoformat(cited_at)
        verdicts = await self._runner.run(UrlJob(url, tuple(claims), when, compare), nullcontext())
        return [verdict.model_dump(mode="json") for verdict in verdicts]

    async def close(self) -> None:
        """Close the actor's connections."""
        await self._runner.aclose()


class RayRunner(Runner):
    """Dispatches jobs to ``actors`` async Ray actors (default: one per cluster CPU, at most
    ``settings.batch_concurrency``), always to the least busy one."""

    def __init__(
        self, settings: Settings, *, num_cpus: int | None = None, actors: int | None = None
    ) -> None:
        ray = _ray()
        self._ray = ray
        self._owns_ray = False
        if not ray.is_initialized():
            if os.environ.get("RAY_ADDRESS"):
                ray.init(log_to_driver=False)  # joins the cluster RAY_ADDRESS names
            else:
                # Local mode on loopback only: no dashboard, nothing listening beyond 127.0.0.1.
                ray.init(
                    num_cpus=num_cpus,
                    include_dashboard=False,
                    log_to_driver=False,
                    _node_ip_address="127.0.0.1",
                )
            self._owns_ray = True
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        count = actors or max(1, min(settings.batch_concurrency, cpus))
        worker_class = ray.remote(num_cpus=min(1.0, cpus / count))(BatchWorker)
        self._actors = [worker_class.remote(settings) for _ in range(count)]
        self._busy = [0] * count

    @property
    def actors(self) -> int:
        """How many actors run jobs."""
        return len(self._actors)

    async def run(
        self, job: UrlJob, host_slot: AbstractAsyncContextManager[object]
    ) -> list[UrlVerdict]:
        """Run ``job`` on the least busy actor; the host slot is held for the whole job."""
        index = min(range(len(self._actors)), key=self._busy.__getitem__)
        self._busy[index] += 1
        try:
            async with host_slot:
                when = None if job.cited_at is None else job.cited_at.isoformat()
                dumped = await self._actors[index].run.remote(
                    job.url, list(job.claims), when, job.compare_archive
                )
        finally:
            self._busy[index] -= 1
        return [UrlVerdict.model_validate(item) for item in dumped]

    async def aclose(self) -> None:
        """Stop the actors, and the local Ray this runner started."""
        for actor in self._actors:
            try:
                await actor.close.remote()
            finally:
                self._ray.kill(actor)
        self._actors = []
        if self._owns_ray:
            self._ray.shutdown()
