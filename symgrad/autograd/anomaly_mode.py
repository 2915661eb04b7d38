"""``torch.autograd.anomaly_mode``: the anomaly-detection switches under PyTorch's module
path (``from torch.autograd.anomaly_mode import detect_anomaly``).

Examples
--------
>>> from symgrad.autograd.anomaly_mode import detect_anomaly
>>> str(detect_anomaly)
"<class 'symgrad.autograd.anomaly_mode.detect_anomaly'>"
"""

from symgrad.autograd.anomaly import detect_anomaly, set_detect_anomaly

detect_anomaly.__module__ = set_detect_anomaly.__module__ = __name__

__all__ = ["detect_anomaly", "set_detect_anomaly"]
