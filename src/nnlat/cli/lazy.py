"""Sub-command groups imported only when they are run, so that ``nnlat --help`` starts at once.

A group such as ``nnlat eval`` needs torch and PyTorch Geometric (seconds to import);
registering it by module path keeps those imports out of every other command.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import click
import typer
from typer.core import TyperGroup

_COMPLETION_OPTIONS = {"install_completion", "show_completion"}


@dataclass(frozen=True)
class LazyCommand:
    """A sub-command known by where it lives and a one-line help, imported when run.

    Attributes:
        target: ``"package.module:attribute"``, the attribute a ``typer.Typer``.
        help: the line ``nnlat --help`` shows for it (without importing it).
    """

    target: str
    help: str

    def load(self, name: str) -> click.Command:
        """Import the module and build the click command of its Typer app."""
        module_name, _, attribute = self.target.partition(":")
        app: typer.Typer = getattr(importlib.import_module(module_name), attribute)
        command = typer.main.get_command(app)
        command.name = name
        # get_command builds a stand-alone program; as a sub-command it must not offer
        # shell-completion installation (the top-level ``nnlat`` does).
        command.params = [p for p in command.params if p.name not in _COMPLETION_OPTIONS]
        return command


class LazyGroup(TyperGroup):
    """A typer group whose ``lazy`` sub-commands are imported on first use.

    Listing them (``--help``) shows their one-line help without importing anything.
    """

    lazy: dict[str, LazyCommand] = {}  # noqa: RUF012 -- filled once, by main.py

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self._listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Eager commands in their order of registration, then the lazy ones."""
        eager = [n for n, c in self.commands.items() if not isinstance(c, _Unloaded)]
        return [*eager, *(n for n in self.lazy if n not in eager)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command; a lazy one is imported unless the group is only listing them."""
        known = self.commands.get(cmd_name)
        if not isinstance(known, _Unloaded) and (known or cmd_name not in self.lazy):
            return known
        spec = self.lazy[cmd_name]
        if self._listing:
            return click.Command(cmd_name, help=spec.help)
        self.commands[cmd_name] = spec.load(cmd_name)
        return self.commands[cmd_name]

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Help that lists the lazy commands by their one-line help alone."""
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As typer's, with the lazy names among the "did you mean" suggestions."""
        for name in self.lazy:
            # a placeholder, replaced by the real command on first use (get_command)
            self.commands.setdefault(name, _Unloaded(name))
        return super().resolve_command(ctx, args)


class _Unloaded(click.Command):
    """Marks a lazy name in ``commands`` (for typo suggestions) before its import."""
