"""pb_utils.MetricFamily and Metric: custom metrics a model defines.

Each family, metric and change is reported to the engine (a `metric` frame), which holds them server-wide as
Triton does and publishes them on /metrics. The values are also kept here: value() reads this instance's own
(Triton's reads the shared series, which differs only when several instances create the same labels).
"""

import enum
import math
import re
import threading

from .runtime import RUNTIME

# Prometheus's rules, which Triton's registry holds family names and labels to.
_METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*\Z")
_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*\Z")
_KIND_NAMES = {0: "counter", 1: "gauge", 2: "histogram"}
# The kind of every family this process declared: a name declared again shares its family, with the same kind only.
_DECLARED = {}
_DECLARED_LOCK = threading.Lock()


def _finite(family, value):
    """`value` as a float; NaN and infinities are refused (the engine's frames are JSON, which has neither)."""
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"metric family '{family}': a metric value must be finite, not {value}")
    return value


def _report(header):
    """Tells the engine (nothing to tell outside the studio's stub: tests use the module directly)."""
    if RUNTIME.writer is not None:
        RUNTIME.send({"type": "metric", **header})


class MetricKind(enum.IntEnum):
    COUNTER = 0
    GAUGE = 1
    HISTOGRAM = 2


class Metric:
    """One labelled series of a MetricFamily."""

    def __init__(self, family, labels, buckets):
        self._family = family
        self._labels = dict(labels or {})
        for key, value in self._labels.items():
            if not isinstance(key, str) or not _LABEL_NAME.match(key) or key.startswith("__"):
                raise ValueError(f"metric family '{family.name}': {key!r} is not a valid label name")
            if not isinstance(value, str):
                raise ValueError(f"metric family '{family.name}': the value of label '{key}' must be a string")
        self._buckets = [_finite(family.name, b) for b in buckets] if buckets is not None else None
        if self._buckets is not None and any(b <= a for a, b in zip(self._buckets, self._buckets[1:])):
            raise ValueError(f"metric family '{family.name}': histogram buckets must be in increasing order")
        self._value = 0.0
        self._lock = threading.Lock()
        _report({"op": "create", "name": family.name, "labels": self._labels,
                 **({"buckets": self._buckets} if self._buckets is not None else {})})

    def _changed(self, op, value):
        _report({"op": op, "name": self._family.name, "labels": self._labels, "value": value})

    def increment(self, value):
        value = _finite(self._family.name, value)
        if self._family.kind == MetricKind.COUNTER and value < 0:
            raise ValueError(f"metric family '{self._family.name}': a counter cannot be incremented by {value}")
        if self._family.kind == MetricKind.HISTOGRAM:
            raise ValueError(f"metric family '{self._family.name}': a histogram takes observe(), not increment()")
        with self._lock:
            self._value += value
        self._changed("increment", value)

    def set(self, value):
        value = _finite(self._family.name, value)
        if self._family.kind != MetricKind.GAUGE:
            raise ValueError(f"metric family '{self._family.name}': only a gauge can be set")
        with self._lock:
            self._value = value
        self._changed("set", value)

    def observe(self, value):
        value = _finite(self._family.name, value)
        if self._family.kind != MetricKind.HISTOGRAM:
            raise ValueError(f"metric family '{self._family.name}': only a histogram takes observe()")
        with self._lock:
            self._value += value
        self._changed("observe", value)

    def value(self):
        return self._value


class MetricFamily:
    """`MetricFamily(name, description, kind)`, kind one of MetricFamily.COUNTER, GAUGE, HISTOGRAM."""

    COUNTER = MetricKind.COUNTER
    GAUGE = MetricKind.GAUGE
    HISTOGRAM = MetricKind.HISTOGRAM

    def __init__(self, name, description, kind):
        if not name:
            raise ValueError("MetricFamily needs a name")
        if not isinstance(name, str) or not _METRIC_NAME.match(name):
            raise ValueError(f"{name!r} is not a valid metric family name (letters, digits, '_' and ':')")
        if name.startswith(("nv_", "studio_")):
            raise ValueError(f"metric family '{name}': names starting nv_ or studio_ are the server's own metrics")
        self.name = name
        self.description = description
        self.kind = MetricKind(kind)
        with _DECLARED_LOCK:
            known = _DECLARED.setdefault(name, self.kind)
        if known != self.kind:
            raise ValueError(f"metric family '{name}' already exists as a {_KIND_NAMES[int(known)]}; "
                             f"it cannot also be a {_KIND_NAMES[int(self.kind)]}")
        _report({"op": "family", "name": name, "description": str(description), "kind": _KIND_NAMES[int(self.kind)]})

    def Metric(self, labels=None, buckets=None):  # noqa: N802 — Triton's method name
        if self.kind == MetricKind.HISTOGRAM and buckets is None:
            raise ValueError(f"metric family '{self.name}': a histogram metric needs buckets")
        return Metric(self, labels, buckets)
