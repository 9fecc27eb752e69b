"""The ``drill`` command: packetdrill scripts against a simulated stack (``docs/drill.md``)."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Optional
from xml.etree import ElementTree

import typer

from rtolab._console import fail, new_table, out


class DrillStack(StrEnum):
    """The stack profiles a script can be played against."""

    linux = "linux"
    rfc = "rfc"
    freebsd = "freebsd"
    ns3 = "ns3"
    ns2_sack1 = "ns2-sack1"
    ns2_newreno = "ns2-newreno"


def _junit(path: Path, outcomes: list[dict[str, object]], target: str, label: str) -> None:
    """A JUnit XML report: one test case per script, a failure with its message, a skip with
    its reason; ``target`` names what the scripts ran against (``--stack linux``), ``label``
    is the test cases' class (``drill.linux``, ``drill.kernel``)."""
    suite = ElementTree.Element("testsuite", name=f"rtolab drill {target}", tests=str(len(outcomes)),
                                failures=str(sum(o["status"] == "fail" for o in outcomes)),
                                skipped=str(sum(o["status"] == "skip" for o in outcomes)))
    for o in outcomes:
        case = ElementTree.SubElement(suite, "testcase", classname=f"drill.{label}", name=str(o["script"]))
        if o["status"] == "fail":
            ElementTree.SubElement(case, "failure", message=str(o["message"])).text = f"line {o['line']}: {o['message']}"
        elif o["status"] == "skip":
            ElementTree.SubElement(case, "skipped", message=str(o["message"]))
    ElementTree.ElementTree(suite).write(path, encoding="unicode", xml_declaration=True)


def register(app: typer.Typer) -> None:
    @app.command()
    def drill(
        scripts: Annotated[list[Path], typer.Argument(help="packetdrill scripts (.pkt).", exists=True, dir_okay=False, readable=True)],
        stack: Annotated[DrillStack, typer.Option(help="The simulated stack profile.")] = DrillStack.linux,
        kernel: Annotated[bool, typer.Option("--kernel", help="Play against this machine's own TCP instead, in a private network namespace behind a TUN device (needs root).")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="One JSON object per script.")] = False,
        junit: Annotated[Optional[Path], typer.Option(help="Also write a JUnit XML report here.")] = None,
    ) -> None:
        """Play packetdrill scripts against a simulated stack or the kernel: pass, fail (the
        first mismatch, as packetdrill words it) or skip (what the stack does not model). Exit
        0 when none fails, 1 when one does, 2 on a script that does not parse, a bad option or
        a machine that cannot run --kernel."""
        from rtolab.drill import ScriptError, parse_file
        from rtolab.drill.device import unavailable
        from rtolab.drill.kernel import kernel_version, play_all
        from rtolab.drill.play import play

        parsed = []
        for path in scripts:
            try:
                parsed.append(parse_file(path))
            except ScriptError as e:
                raise fail(str(e)) from None
        if kernel:
            reason = unavailable()
            if reason is not None:
                raise fail(f"--kernel: {reason}")
            target = f"--kernel (Linux {kernel_version()})"
            outcomes = [o.to_dict() for o in play_all(scripts)]
        else:
            target = f"--stack {stack.value}"
            outcomes = [play(script, stack.value).to_dict() for script in parsed]
        if junit is not None:
            _junit(junit, outcomes, target, "kernel" if kernel else stack.value)
        if as_json:
            for o in outcomes:
                out.print(json.dumps(o), highlight=False, soft_wrap=True)
        else:
            table = new_table(f"rtolab drill {target}")
            for column in ("script", "result", "line", "detail"):
                table.add_column(column)
            for o in outcomes:
                table.add_row(str(o["script"]), str(o["status"]), "" if o["line"] is None else str(o["line"]), str(o["message"]))
            out.print(table)
            counts = {s: sum(o["status"] == s for o in outcomes) for s in ("pass", "fail", "skip")}
            out.print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped ({target})")
        if any(o["status"] == "fail" for o in outcomes):
            raise typer.Exit(1)
