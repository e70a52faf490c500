"""API tokens of the server, kept hashed: ``store.tokens``.

A token is 32 random bytes (``nnlat_`` + URL-safe base64), shown once when created. The
database keeps only its SHA-256 digest: tokens are random and long, so a plain digest
cannot be reversed or guessed, and checking one is a single indexed lookup (a slow
password hash would buy nothing here and cost every request).
"""

from __future__ import annotations

import hashlib
import re
import secrets

import sqlalchemy as sa
from sqlalchemy.orm import Session

from nnlat.store.database import Database
from nnlat.store.errors import StoreError
from nnlat.store.tables import TokenRow, utcnow

PREFIX = "nnlat_"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")


def digest(token: str) -> str:
    """The SHA-256 hex digest under which a token is stored.

    Example:
        >>> len(digest("nnlat_x"))
        64
    """
    return hashlib.sha256(token.encode()).hexdigest()


class Tokens:
    """The tokens table of one store.

    Example:
        >>> from nnlat.store import Store
        >>> store = Store.open("sqlite://")
        >>> token = store.tokens.create("ci")
        >>> store.tokens.verify(token), store.tokens.verify("nnlat_wrong")
        ('ci', None)
    """

    def __init__(self, database: Database) -> None:
        """Work in ``database`` (the store's)."""
        self._database = database

    def create(self, name: str) -> str:
        """A new token named ``name``; the only time the token itself is seen.

        Raises:
            StoreError: the name is malformed or already taken.
        """
        if not NAME_PATTERN.match(name):
            raise StoreError(
                f"token name {name!r} is not valid: use 1-64 letters, digits, '_', '.', '@', '-'"
            )
        token = PREFIX + secrets.token_urlsafe(32)

        def work(session: Session) -> None:
            if session.scalar(sa.select(TokenRow.id).where(TokenRow.name == name)) is not None:
                raise StoreError(f"a token named {name!r} exists; revoke it first or pick another")
            session.add(TokenRow(name=name, digest=digest(token), created_at=utcnow()))

        self._database.write(f"create token {name}", work)
        return token

    def verify(self, token: str) -> str | None:
        """The name of ``token``, or None if it is not a valid token."""
        if not token.startswith(PREFIX):
            return None
        with self._database.transaction("check a token") as session:
            return session.scalar(sa.select(TokenRow.name).where(TokenRow.digest == digest(token)))

    def names(self) -> list[str]:
        """Names of every token, sorted."""
        with self._database.transaction("list tokens") as session:
            return list(session.scalars(sa.select(TokenRow.name).order_by(TokenRow.name)))

    def revoke(self, name: str) -> bool:
        """Delete the token named ``name``; False if there was none."""

        def work(session: Session) -> bool:
            deleted = session.execute(sa.delete(TokenRow).where(TokenRow.name == name))
            return bool(deleted.rowcount)  # type: ignore[attr-defined]

        return self._database.write(f"revoke token {name}", work)
