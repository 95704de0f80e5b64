"""The output stage: the machinery every stage above writes through (docs/ARCHITECTURE.md, stage 1).

``outfiles`` (the one writer of a file a user names: atomic for regular files, written through for FIFOs and
devices), ``claims`` (the rule that no output is an input or another output of the same command), ``tables`` (the
one table renderer of human views), ``textrows`` (large text outputs from columns by the C kernel), ``blockwriter``
(blocks made on worker threads, written in order), ``arrowcols`` (the Arrow arrays of every Parquet writer),
``serialize`` (the one JSON serializer of every ``--json`` output), ``table`` (the one column model of every table
output), one encoder per format that writes any such table (``csv_table``, ``json_table``, ``npz_table``,
``parquet_table``) and ``writers`` (the registries of writers a command looks up by format).  Nothing here knows what
a table is of: the stages above say their columns.
"""

__all__ = ["arrowcols", "blockwriter", "claims", "csv_table", "json_table", "npz_table", "outfiles", "parquet_table",
           "serialize", "table", "tables", "textrows", "writers"]
