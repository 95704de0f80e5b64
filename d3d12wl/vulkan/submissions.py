"""How the GPU check cuts a lowered call into executes so that no GPU submission runs longer than a bound (issue
44): the GPU harness submits every execute on its own (preprocess, execute, wait), and a submission the driver
sees run for seconds is one a desktop's watchdog kills (NVIDIA's Linux driver logged its 4,000 ms timeout during
single submissions of 39 s and 78 s).

**The cost model.**  An execute's GPU time is estimated as :data:`NS_PER_SEQUENCE` per sequence (the preprocess
and the per-draw work of the execute) plus :data:`NS_PER_INVOCATION` per shader invocation it asks for (vertex
count x instances, index count x instances, or thread groups: the recording shaders run one invocation per
group).  Both are about twice what the harness measured: 222 ms for the 10,485,760 sequences of the frame
(about 3 invocations each) on an H200, 21 ns a sequence; 39 s and 78 s for 1.31e10 and 2.62e10 vertex
invocations on an H100, 3.0 ns an invocation (the recording shaders' atomics on one record per draw).  The
harness measures every execute and the comparison reports the longest, so a device the model underestimates is
seen.

**The cut.**  A leaf's sequences, in order, are cut greedily into executes of at most ``max_sequences``
sequences and an estimated ``bound`` each; a single sequence estimated above the bound cannot be cut (a D3D12
draw or dispatch is one command) and the call is refused naming it.  Cutting a list's sequences into several
executes changes how it is lowered (an incrementing constant is then a push constant holding the position, not
the DGC sequence index, which restarts at every execute: :mod:`d3d12wl.vulkan.work_lists`), so :func:`cut` lowers
the call again when a leaf needs more executes than it was lowered for.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from d3d12wl.vulkan.lowered import Lowering, LoweringError
from d3d12wl.vulkan.vk import TokenType

__all__ = ["DEFAULT_BOUND_MS", "NS_PER_INVOCATION", "NS_PER_SEQUENCE", "SubmissionBoundError", "cut",
           "estimated_ns", "executes_within", "invocations"]

#: the bound on one submission's GPU time the GPU check keeps by default
DEFAULT_BOUND_MS = 1000.0
#: estimated GPU nanoseconds per sequence and per invocation (about twice the measured: the module docstring)
NS_PER_SEQUENCE = 50.0
NS_PER_INVOCATION = 6.0


class SubmissionBoundError(LoweringError):
    """One sequence alone is estimated to run longer than the bound: it cannot be cut."""


def _factors(leaf: Lowering) -> np.ndarray:
    """Per sequence of a leaf, the factors of its action's invocations: (count, instances) or the three group
    counts (uint32 columns)."""
    assert leaf.layout is not None
    action = leaf.layout.action
    words = 3 if action.type in (TokenType.DISPATCH, TokenType.DRAW_MESH_TASKS) else 2
    return np.ascontiguousarray(leaf.sequences[:, action.offset:action.offset + 4 * words]).view("<u4")


def invocations(leaf: Lowering) -> np.ndarray:
    """Per sequence of a leaf, the shader invocations its action asks for (uint64, as the recording shaders' model
    counts them: three group counts of 2^32 - 1 wrap): vertices x instances, indices x instances, or thread groups
    (the recording shaders run one invocation per group)."""
    v = _factors(leaf).astype(np.uint64)
    out = v[:, 0] * v[:, 1]
    return out * v[:, 2] if v.shape[1] == 3 else out


def estimated_ns(leaf: Lowering) -> np.ndarray:
    """Per sequence, its estimated GPU nanoseconds (the cost model; the invocations multiplied in float64, which
    does not wrap)."""
    return NS_PER_SEQUENCE + NS_PER_INVOCATION * np.prod(_factors(leaf).astype(np.float64), axis=1)


def executes_within(costs: np.ndarray, max_sequences: int | None, bound_ns: float, where: str
                    ) -> tuple[tuple[int, int], ...]:
    """Sequences of the given ``costs`` (ns) cut in order into executes of at most ``max_sequences`` sequences and
    ``bound_ns`` each: ``(first, count)`` pairs.  Raises :class:`SubmissionBoundError` naming the first sequence
    that alone is over the bound."""
    n = len(costs)
    if n == 0:
        return ((0, 0),)
    over = costs > bound_ns
    if over.any():
        k = int(np.argmax(over))
        raise SubmissionBoundError(f"{where} sequence {k}: estimated {costs[k] / 1e6:.0f} ms of GPU time in one "
                                   f"command, over the {bound_ns / 1e6:.0f} ms bound on a submission; a D3D12 draw "
                                   "or dispatch is one command and is not cut")
    step = n if max_sequences is None else max_sequences
    total = np.concatenate([[0.0], np.cumsum(costs)])
    out = []
    s = 0
    while s < n:
        e = int(np.searchsorted(total, total[s] + bound_ns, side="right")) - 1
        e = max(s + 1, min(e, s + step, n))
        out.append((s, e - s))
        s = e
    return tuple(out)


def cut(low: Lowering, relower: Callable[[], Lowering], max_sequences: int | None, bound_ms: float) -> Lowering:
    """``low`` (lowered with ``max_sequences``) with every leaf's executes cut within ``bound_ms``
    (:func:`executes_within`); ``relower()`` lowers the same call with ``cut=True`` (:func:`~d3d12wl.vulkan.lower`),
    called when a leaf needs more executes than it was lowered for.  Raises :class:`SubmissionBoundError` for a
    sequence that cannot be cut."""
    bound = bound_ms * 1e6
    plans = [executes_within(estimated_ns(leaf), max_sequences, bound, leaf.call) for leaf in low.leaves()]
    if any(len(plan) > len(leaf.chunks) for leaf, plan in zip(low.leaves(), plans, strict=True)):
        low = relower()
    for leaf, plan in zip(low.leaves(), plans, strict=True):
        leaf.chunks = plan
    return low
