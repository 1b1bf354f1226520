"""``paigow cache``: the compiled house ways (the dealer's setting of every seven-card hand) in
the cache folder: build, info, verify, clear."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from paigow.cli.common import AnalysisJsonOpt, HouseWayOpt, WheelOpt, WorkersOpt, out_console
from paigow.cli.jobs import load_house_way, open_compiled
from paigow.ranking import Wheel

cache_app = typer.Typer(
    help="The cache of compiled house ways (the dealer's setting of every seven-card hand).",
    no_args_is_help=True,
)


@cache_app.command("build")
def cache_build(
    house_way: HouseWayOpt = "standard",
    wheel: WheelOpt = Wheel.SECOND,
    workers: WorkersOpt = 2,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if present.")] = False,
    with_structures: Annotated[
        bool,
        typer.Option(
            "--structures",
            help="Also build the optimal player's dominance structures (about 40 s, 3.5 GB): "
            "with them a hand's 21 settings (paigow analyze, each setting's price at a table) "
            "are counted in milliseconds.",
        ),
    ] = False,
) -> None:
    """Compile the house way for every seven-card hand (about 30 s on two cores)."""
    from paigow.analysis.compiled import _stamp_path, cache_path

    way = load_house_way(house_way)
    path = cache_path(way, wheel)
    if force and path.exists():
        path.unlink()
        _stamp_path(path).unlink(missing_ok=True)
    compiled = open_compiled(way, wheel, workers)
    meta = compiled.meta
    out_console().print(
        f"{compiled.path}\n  house way {way.name}, wheel {wheel.value}, {meta['hands']:,} hands, "
        f"built {meta['built_at']} in {meta['build_seconds']} s"
    )
    if with_structures:
        from paigow.analysis.edge import FULL_DECK_INDICES
        from paigow.analysis.optimal import structures, structures_folder
        from paigow.analysis.runner import TableSpec

        spec = TableSpec.of(compiled.way, compiled.wheel, compiled.path.parent)
        structures(spec, FULL_DECK_INDICES, True)
        out_console().print(f"{structures_folder(spec, FULL_DECK_INDICES)}: the structures")


@cache_app.command("info")
def cache_info(as_json: AnalysisJsonOpt = False) -> None:
    """List the compiled house ways in the cache folder."""
    from paigow.analysis.compiled import (
        CacheError,
        _file_state,
        _stamp_path,
        cache_dir,
        cached_files,
        read_header,
    )

    rows: list[dict[str, Any]] = []
    for path in cached_files():
        try:
            meta = read_header(path)
        except CacheError as exc:
            rows.append({"path": str(path), "error": str(exc)})
            continue
        stamp = _stamp_path(path)
        rows.append(
            {
                "path": str(path),
                "house_way": meta["house_way"]["name"],
                "wheel": meta["wheel"],
                "format": meta["format"],
                "bytes": path.stat().st_size,
                "built_at": meta.get("built_at"),
                "build_seconds": meta.get("build_seconds"),
                "verified": stamp.exists() and stamp.read_text() == _file_state(path),
            }
        )
    if as_json:
        print(json.dumps({"folder": str(cache_dir()), "files": rows}))
        return
    console = out_console()
    console.print(f"cache folder: {cache_dir()}")
    if not rows:
        console.print("no compiled house ways (run `paigow cache build`)")
        return
    table = Table()
    for col in ("house way", "wheel", "size", "built", "seconds", "verified", "file"):
        table.add_column(col)
    for r in rows:
        if "error" in r:
            table.add_row("?", "", "", "", "", "[red]damaged[/]", r["path"])
            continue
        table.add_row(
            r["house_way"],
            r["wheel"],
            f"{r['bytes'] / 1e6:.0f} MB",
            str(r["built_at"]),
            str(r["build_seconds"]),
            "yes" if r["verified"] else "no",
            Path(r["path"]).name,
        )
    console.print(table)


@cache_app.command("verify")
def cache_verify(as_json: AnalysisJsonOpt = False) -> None:
    """Check every compiled house way fully (header, size, checksum). Exit 1 if any is bad."""
    from paigow.analysis.compiled import CacheError, cached_files, verify

    results: list[dict[str, Any]] = []
    for path in cached_files():
        try:
            verify(path)
            results.append({"path": str(path), "ok": True})
        except CacheError as exc:
            results.append({"path": str(path), "ok": False, "error": str(exc)})
    if as_json:
        print(json.dumps({"files": results}))
    else:
        console = out_console()
        if not results:
            console.print("no compiled house ways to verify")
        for r in results:
            console.print(
                ("[green]ok[/]  " if r["ok"] else f"[red]BAD[/] {r['error']}  ") + r["path"]
            )
    if not all(r["ok"] for r in results):
        raise typer.Exit(1)


@cache_app.command("clear")
def cache_clear() -> None:
    """Delete every compiled house way in the cache folder, with the optimal player's structures,
    the exact-edge checkpoints and results, and the bonus hands' counts."""
    import shutil

    from paigow.analysis.compiled import _stamp_path, cache_dir, cached_files

    files = cached_files()
    for path in files:
        path.unlink()
        _stamp_path(path).unlink(missing_ok=True)
        path.with_name(path.name + ".lock").unlink(missing_ok=True)
    others = 0
    folder = cache_dir()
    if folder.exists():
        for extra in [
            *folder.glob("edge-*.json*"),
            *folder.glob("optimal*-*"),
            *folder.glob("bonus-*.json*"),
        ]:
            if extra.is_dir():
                shutil.rmtree(extra)
            else:
                extra.unlink()
            others += 1
    out_console().print(f"removed {len(files)} compiled house way(s) and {others} other file(s)")
