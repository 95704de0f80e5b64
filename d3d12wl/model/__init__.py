"""Stage 2, the object model: the creation-time descs as Python objects, their JSON description, and the state
around a call.

- :mod:`~d3d12wl.model.argtypes`: the one table of per-argument-type facts (union member, alignment, class, sources).
- :mod:`~d3d12wl.model.objects`: root signatures, program command signatures, work list signatures and arrays,
  programs, ExecuteIndirect command signatures, member for member as in C.
- :mod:`~d3d12wl.model.description`: the JSON description (schema ``description.schema.json``) <-> objects <->
  cffi desc structs.
- :mod:`~d3d12wl.model.state`: device caps, command-list state before a call, the call.

May import: the foundation and ``abi``.
"""

__all__ = ["argtypes", "description", "objects", "state"]
