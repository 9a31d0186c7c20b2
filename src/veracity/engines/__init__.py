"""Engines: sources of per-bin statistics beyond in-memory arrays."""

from ._arrow import ScanResult, scan_file

__all__ = ["ScanResult", "scan_file"]
