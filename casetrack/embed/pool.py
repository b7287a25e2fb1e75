"""The embedder pool: one per process, shared by ingest and search, thread-safe.

It decides which installed model serves each slot (E1 by case language; E6, E7, E12 by
slot), loads models according to the memory tier (resident, lazy or transient), counts loads,
and unloads the least recently used models when free memory runs short.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from casetrack.domain.slots import SLOT_ORDER
from casetrack.domain.views import SlotStatusJson
from casetrack.embed.catalog import ModelSpec, discover_models
from casetrack.embed.production import find_by_hub_repo, for_slot, slot_of
from casetrack.embed.tiers import SKIPPED_IN_SEARCH, SLOTS, Residency, Tier, choose_tier, residency
from casetrack.errors import ModelNotFoundError

log = logging.getLogger(__name__)

# Free memory to keep before loading another model; below it, least recently used models go.
DEFAULT_RESERVE = 1 << 30


def _download_hint(slot: str) -> str:
    return f"Run `casetrack models download --slot {slot}` (or `casetrack models import DIR` offline)."


@dataclass(frozen=True)
class SlotStatus:
    """What the pool can do for one slot of one case language."""

    slot: str
    purpose: str
    model: str | None  # model name, None when missing
    fingerprint: str | None
    residency: Residency
    loaded: bool
    used_in_search: bool
    problem: str | None = None  # why the slot is missing or skipped, with the fix

    def to_json(self) -> SlotStatusJson:
        return {
            "slot": self.slot,
            "purpose": self.purpose,
            "model": self.model,
            "fingerprint": self.fingerprint,
            "residency": self.residency.value,
            "loaded": self.loaded,
            "used_in_search": self.used_in_search,
            "problem": self.problem,
        }


@dataclass
class _Loaded:
    spec: ModelSpec
    encoder: Any
    last_used: float = field(default_factory=time.monotonic)


class EncoderPool:
    """Loads encoders on demand under a memory tier; `get` and `use` are safe from any thread."""

    def __init__(
        self,
        models_dir: Path,
        memory_mode: Tier | str | None = None,
        threads: int | None = None,
        reserve_bytes: int = DEFAULT_RESERVE,
        memory: Callable[[], Any] = psutil.virtual_memory,
    ) -> None:
        self.models_dir = models_dir
        self._threads = threads
        self._reserve = reserve_bytes
        self._memory = memory
        mem = memory()
        if memory_mode is None:
            self.tier, self.tier_reason = choose_tier(int(mem.total), int(mem.available))
        else:
            self.tier = Tier(memory_mode)
            self.tier_reason = f"set by --memory-mode {self.tier.value}"
        log.info("Embedder memory tier: %s (%s)", self.tier.value, self.tier_reason)
        if self.tier == Tier.CONSTRAINED:
            log.warning("Low memory mode active: search uses BM25 + E1 only.")
        self._lock = threading.RLock()
        self._loaded: dict[Path, _Loaded] = {}
        self._in_use: dict[Path, int] = {}
        self._specs: list[ModelSpec] | None = None
        self.load_count = 0

    # -- which model serves a slot ------------------------------------------------------------

    def specs(self) -> list[ModelSpec]:
        """Installed models (scanned once; `rescan` after an import or download)."""
        with self._lock:
            if self._specs is None:
                self._specs = discover_models(self.models_dir)
            return self._specs

    def rescan(self, models_dir: Path | None = None) -> None:
        """Look for installed models again (after a download or import), in `models_dir` when
        the models rule now points elsewhere. Loaded models stay until unloaded as usual."""
        with self._lock:
            if models_dir is not None:
                self.models_dir = models_dir
            self._specs = None

    def resolve(self, slot: str, language: str) -> ModelSpec | None:
        """The installed model for `slot`; for E1 it must cover the case language.

        The production catalog's choice for the slot and language wins when installed (E1:
        bge-small-en for English, multilingual-e5-small for Portuguese). Otherwise the longest
        max_tokens (chunks are ~500 tokens), then the most languages. E6, E7 and E12 serve
        every language: the retrieval benchmarks decide how much weight they get per language.
        """
        if slot not in SLOTS:
            raise ValueError(f"unknown slot {slot!r}; expected one of {', '.join(SLOTS)}")
        candidates = [s for s in self.specs() if slot_of(s) == slot and s.role == SLOTS[slot].role]
        if slot == "E1":
            candidates = [s for s in candidates if s.covers(language)]
        if not candidates:
            return None
        preferred = for_slot(slot, language)
        for spec in candidates:
            if find_by_hub_repo(spec.hub_repo_for_users) == preferred:
                return spec
        return sorted(candidates, key=lambda s: (-s.max_tokens, -len(s.languages)))[0]

    def require(self, slot: str, language: str) -> ModelSpec:
        spec = self.resolve(slot, language)
        if spec is None:
            what = SLOTS[slot].purpose
            lang = f" for language {language!r}" if slot == "E1" else ""
            raise ModelNotFoundError(
                f"No {what} model ({slot}){lang} is installed in {self.models_dir}.", _download_hint(slot)
            )
        return spec

    def search_slots(self, language: str) -> dict[str, str | None]:
        """slot -> None if search may use it, else the reason it is skipped."""
        out: dict[str, str | None] = {}
        for slot in SLOT_ORDER:
            if slot in SKIPPED_IN_SEARCH[self.tier]:
                out[slot] = f"skipped in {self.tier.value} memory mode"
            elif self.resolve(slot, language) is None:
                out[slot] = f"model not installed. {_download_hint(slot)}"
            else:
                out[slot] = None
        return out

    def status(self, language: str) -> list[SlotStatus]:
        skipped = self.search_slots(language)
        rows = []
        for slot in SLOT_ORDER:
            spec = self.resolve(slot, language)
            with self._lock:
                loaded = spec is not None and spec.path in self._loaded
            rows.append(
                SlotStatus(
                    slot=slot,
                    purpose=SLOTS[slot].purpose,
                    model=spec.name if spec else None,
                    fingerprint=spec.fingerprint if spec else None,
                    residency=residency(self.tier, slot),
                    loaded=loaded,
                    used_in_search=skipped[slot] is None,
                    problem=skipped[slot],
                )
            )
        return rows

    # -- loading ------------------------------------------------------------------------------

    def get(self, slot: str, language: str) -> Any:
        """The loaded encoder for `slot` (loading it if needed). Raises ModelNotFoundError."""
        return self._acquire(slot, language, hold=False).encoder

    @contextmanager
    def use(self, slot: str, language: str) -> Iterator[Any]:
        """An encoder for one operation; a transient slot is unloaded when the last user leaves."""
        entry = self._acquire(slot, language, hold=True)
        path = entry.spec.path
        try:
            yield entry.encoder
        finally:
            with self._lock:
                entry.last_used = time.monotonic()  # idle counts from the end of the last use
                self._in_use[path] -= 1
                if self._in_use[path] == 0 and residency(self.tier, slot) == Residency.TRANSIENT:
                    self._unload(path, "transient in this memory mode")

    def _acquire(self, slot: str, language: str, hold: bool) -> _Loaded:
        # Loading and marking in use happen under one lock, so memory pressure in another
        # thread cannot unload the model between the two.
        spec = self.require(slot, language)
        with self._lock:
            entry = self._loaded.get(spec.path)
            if entry is None:
                self._relieve_pressure(keep=spec.path)
                entry = _Loaded(spec, self._build(slot, spec))
                self._loaded[spec.path] = entry
                self.load_count += 1
            entry.last_used = time.monotonic()
            if hold:
                self._in_use[spec.path] = self._in_use.get(spec.path, 0) + 1
            return entry

    def preload(self, language: str) -> list[str]:
        """Load every resident slot that is installed; returns the slots loaded."""
        done = []
        for slot in SLOT_ORDER:
            if residency(self.tier, slot) == Residency.RESIDENT and self.resolve(slot, language) is not None:
                self.get(slot, language)
                done.append(slot)
        return done

    def loaded_models(self) -> list[str]:
        with self._lock:
            return sorted(e.spec.name for e in self._loaded.values())

    def unload_all(self) -> None:
        with self._lock:
            for path in list(self._loaded):
                self._unload(path, "pool closed")

    def unload_idle(self, idle_s: float, now: float | None = None) -> list[str]:
        """Unload every model not in use and unused for `idle_s` seconds (the daemon's idle
        timer); returns their names. The next search or ingest loads them again (~0.2-1 s each)."""
        cutoff = (time.monotonic() if now is None else now) - idle_s
        with self._lock:
            idle = [p for p, e in self._loaded.items() if e.last_used <= cutoff and not self._in_use.get(p)]
            names = [self._loaded[p].spec.name for p in idle]
            for path in idle:
                self._unload(
                    path,
                    f"unused for {idle_s / 60:.0f} min" if idle_s >= 60 else f"unused for {idle_s:.0f} s",
                )
            return names

    def _build(self, slot: str, spec: ModelSpec) -> Any:
        started = time.perf_counter()
        if spec.role == "dense":
            from casetrack.embed.dense import DenseEncoder

            encoder: Any = DenseEncoder(spec, threads=self._threads)
        elif spec.role == "sparse":
            from casetrack.embed.sparse import SparseEncoder

            # The arena costs ~260 MB kept (one chunk's [tokens, vocab] temporaries) and buys ~3x
            # speed; a transient model gives the memory back when it is unloaded anyway.
            encoder = SparseEncoder(spec, threads=self._threads, arena=True)
        else:
            from casetrack.embed.late import LateInteractionEncoder

            encoder = LateInteractionEncoder(spec, threads=self._threads)
        log.info("Loaded %s for %s in %.2f s", spec.name, slot, time.perf_counter() - started)
        return encoder

    def _unload(self, path: Path, why: str) -> None:
        entry = self._loaded.pop(path, None)
        if entry is not None:
            log.info("Unloaded %s (%s)", entry.spec.name, why)

    def _relieve_pressure(self, keep: Path) -> None:
        """Unload least recently used idle models while free memory is under the reserve.

        E1 goes last: every search needs it.
        """
        while int(self._memory().available) < self._reserve:
            idle = [
                (slot_of(e.spec) == "E1", e.last_used, p)
                for p, e in self._loaded.items()
                if p != keep and not self._in_use.get(p)
            ]
            if not idle:
                log.warning("Memory is low and no loaded model is idle; loading anyway.")
                return
            _, _, victim = min(idle)
            self._unload(victim, "memory pressure")
