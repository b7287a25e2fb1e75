"""Nothing leaves the machine: the environment that keeps the libraries CaseTrack loads offline.

onnxruntime (1.2x wheels, Linux included) starts a telemetry client as soon as it is imported: it
writes a device id and a queue of session events under ~/.cache/Microsoft/DeveloperTools/.onnxruntime/
and, about ten seconds later, looks up mobile.events.data.microsoft.com to upload them. Only
ORT_DISABLE_TELEMETRY in the environment *before the import* stops both;
`onnxruntime.disable_telemetry_events()` afterwards does not. huggingface-hub is only needed by
`casetrack models download`; everywhere else it is switched offline. Child processes (the daemon,
the parse child) inherit the process environment, so setting it once at the entry point covers them.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping

# Forced, not defaulted: a stray ORT_DISABLE_TELEMETRY=0 in a user's shell must not switch it back on.
TELEMETRY_OFF: Mapping[str, str] = {
    "ORT_DISABLE_TELEMETRY": "1",  # onnxruntime's 1DS telemetry (read when onnxruntime is imported)
    "HF_HUB_DISABLE_TELEMETRY": "1",  # huggingface-hub's usage pings
    "DO_NOT_TRACK": "1",  # the cross-tool convention other libraries honour
}
OFFLINE: Mapping[str, str] = {"HF_HUB_OFFLINE": "1"}  # read when huggingface-hub is imported


def telemetry_off(environ: MutableMapping[str, str]) -> None:
    """Set TELEMETRY_OFF in `environ`; it must happen before onnxruntime is imported to count."""
    environ.update(TELEMETRY_OFF)


def keep_local(environ: MutableMapping[str, str], *, downloading: bool = False) -> None:
    """Turn telemetry off in `environ` (the process's os.environ, at an entry point, before
    onnxruntime or huggingface-hub is imported) and, unless `downloading` (`models download`, the
    one command meant to reach the network), put huggingface-hub offline. A download keeps the
    user's own HF_HUB_OFFLINE, which the download command honours.
    """
    telemetry_off(environ)
    if not downloading:
        environ.update(OFFLINE)
