"""Memory tiers: which encoder slots stay resident, load lazily or load only for one use.

PRD 02 §7, with one decision of ours: the tier decides what is kept in memory and which
search stages run, not what a case stores. Ingest always computes every installed model
(one at a time on a constrained machine), so a case built on an 8 GB laptop is as complete as
one built on a workstation.
"""

from __future__ import annotations

from enum import StrEnum

from casetrack.domain.slots import SLOTS, Slot

__all__ = ["SLOTS", "Slot", "Residency", "Tier", "choose_tier", "residency"]

GIB = 1 << 30


class Tier(StrEnum):
    FULL = "full"
    STANDARD = "standard"
    CONSTRAINED = "constrained"


class Residency(StrEnum):
    RESIDENT = "resident"  # loaded at start, kept
    LAZY = "lazy"  # loaded on first use, kept until memory pressure
    TRANSIENT = "transient"  # loaded for one use, unloaded right after


POLICY: dict[Tier, dict[str, Residency]] = {
    Tier.FULL: {s: Residency.RESIDENT for s in SLOTS},
    Tier.STANDARD: {
        "E1": Residency.RESIDENT,
        "E6": Residency.RESIDENT,
        "E7": Residency.RESIDENT,
        "E12": Residency.LAZY,
    },
    Tier.CONSTRAINED: {
        "E1": Residency.RESIDENT,
        "E6": Residency.TRANSIENT,
        "E7": Residency.TRANSIENT,
        "E12": Residency.TRANSIENT,
    },
}

# Search stages a tier skips to stay inside its memory and latency budget.
SKIPPED_IN_SEARCH: dict[Tier, tuple[str, ...]] = {
    Tier.FULL: (),
    Tier.STANDARD: (),
    Tier.CONSTRAINED: ("E6", "E7", "E12"),
}

# Total RAM thresholds (PRD 02 §7) and the free memory a tier needs on top at start-up.
FULL_MIN_TOTAL = 16 * GIB
STANDARD_MIN_TOTAL = 8 * GIB
FULL_MIN_AVAILABLE = 4 * GIB
STANDARD_MIN_AVAILABLE = 2 * GIB


def choose_tier(total: int, available: int) -> tuple[Tier, str]:
    """The tier for a machine with `total` and `available` bytes of RAM, and why.

    Total RAM sets the ceiling (16 GB+ full, 8-16 GB standard, below constrained); a machine
    whose free memory is already short drops to the tier that fits.
    """
    total_gb, avail_gb = total / GIB, available / GIB
    facts = f"{total_gb:.1f} GiB total, {avail_gb:.1f} GiB available"
    if total >= FULL_MIN_TOTAL and available >= FULL_MIN_AVAILABLE:
        return Tier.FULL, f"{facts}: all models resident"
    if total >= STANDARD_MIN_TOTAL and available >= STANDARD_MIN_AVAILABLE:
        reason = "" if total < FULL_MIN_TOTAL else " (less than 4 GiB free)"
        return Tier.STANDARD, f"{facts}{reason}: E1, E6, E7 resident, E12 on first use"
    return Tier.CONSTRAINED, f"{facts}: low memory mode, only E1 resident, search uses BM25 + E1"


def residency(tier: Tier, slot: str) -> Residency:
    return POLICY[tier][slot]
