"""The output stage: the machinery every stage above writes through (docs/ARCHITECTURE.md, stage 1).

``outfiles`` (the one writer of a file a user names: atomic for regular files, written through for FIFOs and
devices), ``claims`` (the rule that no output is an input or another output of the same command), ``tables`` (the
one table renderer of human views), ``textrows`` (large text outputs from columns by the C kernel),
``blockwriter`` (blocks made on worker threads, written in order), ``arrowcols`` (the Arrow arrays of every Parquet
writer) and ``serialize`` (the one JSON serializer of every ``--json`` output).
"""

__all__ = ["arrowcols", "blockwriter", "claims", "outfiles", "serialize", "tables", "textrows"]
