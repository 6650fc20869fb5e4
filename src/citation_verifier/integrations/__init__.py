"""Plug-ins for the evaluation frameworks our users work in (docs/INTEGRATIONS.md): a ragas
metric, a DeepEval metric, an Inspect AI scorer, a promptfoo assertion and a LangSmith evaluator,
each a thin layer on :class:`citation_verifier.Checker` and :mod:`.common`. Each module imports
its framework, installed by the extra of the same name."""
