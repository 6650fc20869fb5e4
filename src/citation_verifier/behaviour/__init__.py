"""A behavioural suite for the judge (the CheckList method): minimum-functionality cases from
templates, and edits of real sentences, each with claim, evidence page, expected label and
category. ``citation-verifier eval --suite behaviour`` scores it per category.

Suite items that measure are never trained on: templates and filler words are split into a
``measure`` half and a ``train`` half, and real sentences come from the licensed dev sets'
``test`` rows when measuring, from ``shared/train`` and the ``train`` rows when training."""
