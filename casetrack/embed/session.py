"""onnxruntime sessions configured the same way for every model role."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from casetrack.errors import ModelNotFoundError
from casetrack.privacy import telemetry_off

# The entry point (cli.main.main) has done this already; this is a last line of defence for library
# use. onnxruntime reads ORT_DISABLE_TELEMETRY when it is imported, so it holds only when this module
# is the first to import it (embed/dense.py and embed/tokens.py import onnxruntime themselves).
telemetry_off(os.environ)

import onnxruntime as ort  # noqa: E402

# Not enough on its own (the variable is what stops the upload), but it costs nothing.
if hasattr(ort, "disable_telemetry_events"):
    ort.disable_telemetry_events()

logger = logging.getLogger(__name__)

_REIMPORT_HINT = "The model file may be damaged: re-import it with `casetrack models import DIR`."


def default_threads() -> int:
    """CPUs this process may run on (at least 1).

    Physical cores would be better on SMT machines but need psutil, which this layer avoids;
    the affinity mask at least respects container and taskset limits, unlike os.cpu_count().
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS and Windows have no sched_getaffinity
        return max(1, os.cpu_count() or 1)


def create_session(onnx_path: Path, threads: int | None = None, arena: bool = True) -> ort.InferenceSession:
    """An onnxruntime CPU session for `onnx_path`.

    `threads` sets intra-op parallelism (default: all usable CPUs); inter-op stays at 1
    because these encoder graphs are one chain of ops and a second pool only adds contention.
    `arena=False` turns off the CPU memory arena, which otherwise keeps the peak of
    large temporaries (e.g. a sparse model's [batch, vocab] output) for the process lifetime.
    Raises ModelNotFoundError if the file is missing or onnxruntime cannot load it.
    """
    if not onnx_path.is_file():
        raise ModelNotFoundError(f"The ONNX model file {onnx_path} is missing.", _REIMPORT_HINT)
    intra = threads if threads is not None else default_threads()
    if intra < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")

    options = ort.SessionOptions()
    options.intra_op_num_threads = intra
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.enable_cpu_mem_arena = arena
    # Idle intra-op threads otherwise spin for a while after each run, taking the cores from
    # whatever runs next (LanceDB's scan after a query is encoded ran 3x slower next to them).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")

    started = time.perf_counter()
    try:
        session = ort.InferenceSession(
            str(onnx_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
    # onnxruntime's errors (InvalidProtobuf, Fail, NoSuchFile, ...) derive straight from Exception.
    except Exception as e:
        raise ModelNotFoundError(
            f"onnxruntime {ort.__version__} could not load the model {onnx_path}: {e}", _REIMPORT_HINT
        ) from e
    logger.info(
        "Loaded %s in %.2f s (intra-op threads %d, memory arena %s)",
        onnx_path,
        time.perf_counter() - started,
        intra,
        "on" if arena else "off",
    )
    return session
