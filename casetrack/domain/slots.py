"""The model slots and every name each one goes by, declared once.

A slot (E1, E6, E7, E12; PRODUCT.md "Embedders") is the position a model fills in the pipeline.
The same slot is a search list in `SearchConfig.lists` and `stages_used` ("dense", "sparse",
"e7"; E12 is the "rerank" stage) and one or more LanceDB columns holding its vectors. Every other
module looks these names up here instead of spelling its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

SlotId = Literal["E1", "E6", "E7", "E12"]
# The BM25 list has no model: it is tantivy's, always present.
BM25 = "bm25"


@dataclass(frozen=True)
class Slot:
    """One encoder position: its model.json role, what it is for, and its names downstream."""

    id: str
    role: str  # model.json role
    purpose: str
    stage: str  # the search stage that needs it (shown by `casetrack status`)
    list_name: str  # its name among the fused lists / stages_used
    columns: tuple[str, ...]  # the stored columns; the first is null when a chunk lacks it


SLOTS: dict[str, Slot] = {
    "E1": Slot("E1", "dense", "primary dense", "dense recall + fusion", "dense", ("vector",)),
    "E6": Slot("E6", "sparse", "learned sparse", "sparse fusion", "sparse", ("sparse_ids", "sparse_vals")),
    "E7": Slot("E7", "dense", "structure dense", "structure fusion", "e7", ("vector_e7",)),
    "E12": Slot("E12", "late_interaction", "late interaction", "rerank", "rerank", ("li_vecs", "li_count")),
}
SLOT_IDS: tuple[str, ...] = get_args(SlotId)
# The order slots are loaded, embedded and reported in (E1 first: it is required).
SLOT_ORDER: tuple[str, ...] = ("E1", "E7", "E6", "E12")
assert set(SLOT_IDS) == set(SLOTS) == set(SLOT_ORDER)

# The ranked lists a search can fuse: BM25 plus every slot scored over the candidate set.
FUSED_SLOTS: tuple[str, ...] = ("E1", "E6", "E7")
LISTS: tuple[str, ...] = (BM25, *(SLOTS[s].list_name for s in FUSED_SLOTS))
SLOT_OF_LIST: dict[str, str] = {SLOTS[s].list_name: s for s in FUSED_SLOTS}


def presence_column(slot: str) -> str:
    """The column that is null for a chunk without this slot's embedding."""
    return SLOTS[slot].columns[0]
