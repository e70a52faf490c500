"""Reports print the command that made them, as a user would type it."""

from __future__ import annotations

import click

from nnlat.cli.eval_options import command_line


def test_the_command_line_names_nnlat_however_the_program_was_started() -> None:
    # Under ``python -m nnlat`` the root command's name is three words.
    seen: list[str] = []

    @click.group(name="python -m nnlat")
    def root() -> None: ...

    @root.group(name="eval")
    def evaluate() -> None: ...

    @evaluate.command(name="perfsage")
    @click.option("--epochs", default=5)
    @click.option("--db", default=None)
    def perfsage(epochs: int, db: str | None) -> None:
        seen.append(command_line(click.get_current_context()))

    root(["eval", "perfsage", "--epochs", "9", "--db", "sqlite:///x"], standalone_mode=False)
    assert seen == ["nnlat eval perfsage --epochs 9"]
