"""demo: the sum of an int32 buffer, on the GPU when a CUDA plugin can run.

At import, demo picks its backend once: the first installed plugin
(demo_cu13, then demo_cu12) that reports itself usable; otherwise the CPU
core, with exactly one BackendWarning that names the reason (no plugin, no
CUDA driver, no GPU, no kernel image for this GPU).
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

from . import _core

__version__ = "0.3.0"
__all__ = ["BackendWarning", "backend", "fallback_reason", "sum", "plugin_info"]

PLUGINS = ("demo_cu13", "demo_cu12")


class BackendWarning(RuntimeWarning):
    """demo runs on the CPU: the message says why."""


def _select() -> tuple[Any, str | None]:
    reasons = []
    for name in PLUGINS:
        try:
            module = importlib.import_module(name + "._plugin")
        except ImportError as e:
            if e.name not in (name, name + "._plugin"):
                reasons.append(f"{name} does not import: {e}")
            continue
        usable, reason = module.status()
        if usable:
            return module, None
        reasons.append(f"{name.replace('_', '-')}: {reason}")
    if not reasons:
        return None, "no CUDA plugin is installed (pip install 'demo[cu13]' or 'demo[cu12]')"
    return None, "; ".join(reasons)


_plugin, fallback_reason = _select()
backend = _plugin.__name__.split(".")[0] if _plugin is not None else "cpu"
if fallback_reason is not None:
    warnings.warn(f"demo runs on the CPU: {fallback_reason}", BackendWarning, stacklevel=2)


def sum(buffer: Any) -> int:  # noqa: A001 - the package's one operation
    """The exact sum of a contiguous int32 buffer (array.array('i'), NumPy int32)."""
    if _plugin is not None:
        return int(_plugin.sum(buffer))
    return int(_core.sum(buffer))


def plugin_info() -> dict[str, Any] | None:
    """The active plugin's build (plugin, CUDA runtime, architectures) and GPU, or None."""
    if _plugin is None:
        return None
    info = dict(_plugin.build_info())
    info["device"] = _plugin.device()
    return info
