"""The cycle collector's settings for msport's processes (the CLI, its workers, the server).

Analysis allocates millions of short-lived tree nodes, freed by reference counting; the cycle
collector's default (a young collection every 700 allocations, a full one as the caches grow)
then only costs time. Measured in the analysis core (CPU of one open, bench/keystroke_cost.py):
50,000 lines 5.0 -> 4.1 s; `msport check -j 1` on timm 11.2 -> 9.1 CPU-s. What is loaded so far
(the rules: ~10^5 objects that live as long as the process) is frozen out of its reach, and
young collections come every 50,000 allocations; cyclic garbage still goes, a little later
(+8 MB at the peak of the 50,000-line open).
"""

from __future__ import annotations

import gc

#: Allocations between young collections, and the collections between older ones.
THRESHOLDS = (50_000, 20, 100)


def starting() -> None:
    """Space out the collections from the start of an msport process, before anything is
    imported: importing the server (lsprotocol's ~1,000 classes) and loading the rules allocate
    ~10^5 objects that live as long as the process, and the default thresholds ran two full
    collections over them that freed nothing (server start to first diagnostics: the first
    analysis of examples/yolox_head.py 95 -> 47 ms CPU; bench/cold_start.py). ``tune`` freezes
    what is loaded once the rules are in."""
    gc.set_threshold(*THRESHOLDS)


def tune() -> None:
    """Freeze what is loaded and space the collections out (see the module's docstring). Called
    once the rules are loaded; the CLI calls it before its workers fork, so they inherit it."""
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
