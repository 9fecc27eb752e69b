"""The reproduced papers: the one registry that ``rtolab reproduce``, its command-line choices,
the scorecard and the papers' pages read.

Kept free of heavy imports: the command line builds its choices from ``PAPERS`` at start-up.
A paper's reproduction lives in its own module (``Paper.module``), which exposes
``REGISTRY`` (the paper's findings, ``rtolab.findings.Finding``) and ``reproduce(ctx)``
(``rtolab.reproduce.Context`` → ``rtolab.reproduce.Outcome``); adding a paper is that module
and one line here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Paper:
    """One reproduced paper: its id (the file name under ``shared/papers``), the name
    ``rtolab reproduce`` takes, its title, its page under ``docs/``, its reproduction's
    module and, for a paper whose operating point is calibrated, its calibration's module
    (``TARGETS``, ``AXES``, ``CALIBRATED``, ``evaluate``: ``rtolab.calibration``)."""

    paper: str
    name: str
    title: str
    doc: str
    module: str
    calibration: str | None = None

    def reproduction(self) -> ModuleType:
        """The reproduction's module (imported on first use)."""
        return importlib.import_module(self.module)

    def calibrated(self) -> ModuleType | None:
        """The calibration's module (imported on first use), or None."""
        return importlib.import_module(self.calibration) if self.calibration else None


#: The five reproductions, in the papers' order.
PAPERS: dict[str, Paper] = {
    p.name: p
    for p in (
        Paper("000", "minrto-hsdpa", "minimum RTO over HSDPA", "minrto-hsdpa.md", "rtolab.studies.minrto_hsdpa_reproduction", "rtolab.studies.minrto_hsdpa_calibration"),
        Paper("001", "icmp-rto", "ICMP-driven adaptive RTO over a 3G link", "icmp-rto.md", "rtolab.studies.icmp_rto_reproduction", "rtolab.studies.icmp_rto_calibration"),
        Paper("002", "iw10-irto", "IW10 and a 1 s initial RTO over slow wireless links", "iw10-irto.md", "rtolab.studies.iw10_reproduction", "rtolab.studies.iw10_calibration"),
        Paper("003", "spikes", "TCP goodput under delay spikes: model against simulation", "spikes.md", "rtolab.studies.spikes_reproduction"),
        Paper("004", "cc-hsdpa", "NewReno, Westwood+, BIC and CUBIC over HSDPA", "cc-hsdpa.md", "rtolab.studies.cc_hsdpa_reproduction"),
    )
}

#: The argument of ``rtolab reproduce`` that runs every paper.
ALL = "all"
