"""Judge stage: a Judge reads the claim and the top passages and returns a raw judgement."""
