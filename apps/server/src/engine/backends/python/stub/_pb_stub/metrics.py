"""pb_utils.MetricFamily and Metric: custom metrics a model defines, kept in the stub process.

The studio does not publish them on its /metrics endpoint; a model that uses them runs unchanged and can read
its own values back with value().
"""

import enum
import threading


class MetricKind(enum.IntEnum):
    COUNTER = 0
    GAUGE = 1
    HISTOGRAM = 2


class Metric:
    """One labelled series of a MetricFamily."""

    def __init__(self, family, labels, buckets):
        self._family = family
        self._labels = dict(labels or {})
        self._buckets = list(buckets) if buckets is not None else None
        self._value = 0.0
        self._observations = []
        self._lock = threading.Lock()

    def increment(self, value):
        if self._family.kind == MetricKind.COUNTER and value < 0:
            raise ValueError(f"metric family '{self._family.name}': a counter cannot be incremented by {value}")
        if self._family.kind == MetricKind.HISTOGRAM:
            raise ValueError(f"metric family '{self._family.name}': a histogram takes observe(), not increment()")
        with self._lock:
            self._value += value

    def set(self, value):
        if self._family.kind != MetricKind.GAUGE:
            raise ValueError(f"metric family '{self._family.name}': only a gauge can be set")
        with self._lock:
            self._value = float(value)

    def observe(self, value):
        if self._family.kind != MetricKind.HISTOGRAM:
            raise ValueError(f"metric family '{self._family.name}': only a histogram takes observe()")
        with self._lock:
            self._observations.append(float(value))
            self._value += float(value)

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
        self.name = name
        self.description = description
        self.kind = MetricKind(kind)

    def Metric(self, labels=None, buckets=None):  # noqa: N802 — Triton's method name
        if self.kind == MetricKind.HISTOGRAM and buckets is None:
            raise ValueError(f"metric family '{self.name}': a histogram metric needs buckets")
        return Metric(self, labels, buckets)
