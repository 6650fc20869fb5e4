"""Reuse of work across requests: the page cache (``pages``) and the verdict cache
(``verdicts``), both built on single-flight (``singleflight``): identical work running at once
is done once, finished work is kept for a while."""
