"""Write the name lists that lazy import and typing need, from the algorithm table.

    python bench/names.py            # rewrite the lists
    python bench/names.py --check    # exit 1, naming the files, when a list has drifted

``import batchkeccak`` loads no table (each public name is imported on first use), and type
checkers read no table, so a few lists name the rows of ``batchkeccak.algorithms`` as
literals: ``ALGORITHM_NAMES``, ``__all__`` and the type-checking imports in
``batchkeccak/__init__.py``, and ``__all__`` and the constructors' stubs in
``batchkeccak/streams.py``. Each
sits between a ``# names: begin`` and a ``# names: end`` line; this script writes what lies
between them, read from the table of the package ``import batchkeccak`` finds (the one
installed, or the copy ``PYTHONPATH`` names).
``tests/test_table_coverage.py`` fails when a list differs from what it would write.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

BEGIN = "# names: begin"
END = "# names: end"


WIDTH = 100
"""The line length the package is formatted to (pyproject.toml's ruff line-length)."""


def _strings(names: Sequence[str]) -> str:
    """The names as quoted strings, as many to a line as fit: the lines of a literal that
    ``ruff format`` leaves as they are (its statement ends in ``# fmt: skip``)."""
    lines = [""]
    for name in names:
        item = f'"{name}",'
        if lines[-1] and len(lines[-1]) + 1 + len(item) > WIDTH - 4:
            lines.append("")
        lines[-1] = f"{lines[-1]} {item}" if lines[-1] else item
    return "".join(f"    {line}\n" for line in lines)


def _blocks(names: tuple[str, ...], exported: set[str]) -> dict[str, dict[str, str]]:
    """Each file's generated blocks by the label after ``# names: begin``. The lists of
    strings are packed (several names a line): the same rows listed one a line in three
    places read as three copies of one list."""
    public = sorted({*exported, *names, "__version__"})
    streams = sorted({"KeccakHash", "StreamHasher", "algorithms_available", "new", *names})
    return {
        "batchkeccak/__init__.py": {
            "ALGORITHM_NAMES": f"ALGORITHM_NAMES = (\n{_strings(names)})  # fmt: skip\n",
            "__all__": f"__all__ = [\n{_strings(public)}]  # fmt: skip\n",
            "streams": "    from batchkeccak.streams import (\n"
            + "".join(f"        {name},\n" for name in streams)
            + "    )\n",
        },
        "batchkeccak/streams.py": {
            "__all__": f"__all__ = [\n{_strings(streams)}]  # fmt: skip\n",
            "constructors": "".join(f"    {name}: Callable[..., KeccakHash]\n" for name in names),
        },
    }


def _rewrite(text: str, blocks: dict[str, str], path: str) -> str:
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    seen = set()
    index = 0
    while index < len(lines):
        line = lines[index]
        out.append(line)
        index += 1
        if line.strip().startswith(BEGIN):
            label = line.strip()[len(BEGIN) :].split()[0]
            if label not in blocks:
                raise ValueError(f"{path}: no block named {label!r}")
            seen.add(label)
            while index < len(lines) and not lines[index].strip().startswith(END):
                index += 1
            if index == len(lines):
                raise ValueError(f"{path}: {label!r} has no {END!r} line")
            out.append(blocks[label])
    missing = set(blocks) - seen
    if missing:
        raise ValueError(f"{path}: no {BEGIN!r} line for {sorted(missing)}")
    return "".join(out)


def generated() -> dict[Path, str]:
    """Every file with name lists, as this script would write it: the package that
    ``import batchkeccak`` finds (``PYTHONPATH`` picks another copy), from its own table."""
    import batchkeccak
    from batchkeccak.core.parameters import algorithms

    root = Path(batchkeccak.__file__).resolve().parent.parent
    # The public names besides the rows: _EXPORTS' keys not in its current ALGORITHM_NAMES.
    exported = set(batchkeccak._EXPORTS) - set(batchkeccak.ALGORITHM_NAMES)
    files = _blocks(tuple(algorithms), exported)
    return {
        root / path: _rewrite((root / path).read_text(), blocks, path)
        for path, blocks in files.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report drift, write nothing")
    args = parser.parse_args(argv)
    drifted = []
    for path, text in generated().items():
        if path.read_text() != text:
            drifted.append(path)
            if not args.check:
                path.write_text(text)
    if args.check and drifted:
        print(f"names drifted from the table in {', '.join(map(str, drifted))}: "
              "run python bench/names.py", file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
