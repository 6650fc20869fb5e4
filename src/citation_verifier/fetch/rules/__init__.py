"""The fetch policy's rules, one per module, each the same small shape (:class:`base.Rule`):
it gets the load's state and the rest of the chain, and may act before it, after it, or
instead of it (as Scrapy's downloader middlewares do). ``fetch.policy.PagePolicy`` orders them
in one place; the innermost step, :class:`read.ReadPage`, fetches and reads the page."""
