"""``Database``: one SQL database, its engine and the transactions every repository runs in.

:class:`~nnlat.store.store.Store`, :class:`~nnlat.store.jobs.Jobs` and
:class:`~nnlat.store.tokens.Tokens` each hold the same :class:`Database` and do all their
work through :meth:`Database.transaction` (reads) and :meth:`Database.write` (writes), so
a database error becomes a :class:`~nnlat.store.errors.StoreError` with one wording, and a
write that loses a unique-key race is retried once in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Self, TypeVar

from sqlalchemy.engine import URL, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from nnlat.store import migrations
from nnlat.store.errors import StoreError, StoreUnavailableError
from nnlat.store.url import connect, mask

T = TypeVar("T")


def _reason(exc: BaseException) -> str:
    """The first line of a database error (the driver's own message when there is one)."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class Database:
    """An engine and its sessions: transactions that happen whole or not at all.

    Build it with :meth:`open`; close it (or use it as a context manager) when done.

    Example:
        >>> import sqlalchemy as sa
        >>> database = Database.open("sqlite://")
        >>> with database.transaction("count tables") as session:
        ...     session.scalar(sa.text("SELECT count(*) FROM models"))
        0
        >>> database.write("add one", lambda session: 1 + 1)
        2
        >>> database.close()
    """

    def __init__(self, engine: Engine) -> None:
        """Wrap an engine whose database is already migrated (see :meth:`open`)."""
        self._engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    @classmethod
    def open(cls, url: str | URL | None = None, *, migrate: bool = True) -> Self:
        """Connect to nnlat's database and bring its schema up to date.

        Args:
            url: a SQLAlchemy URL; None means ``NNLAT_DB_URL`` or else a SQLite file in the
                user data directory, created if needed (see :mod:`nnlat.store.url`).
            migrate: run the Alembic migrations to head (a no-op when already there).

        Returns:
            An open :class:`Database`.

        Raises:
            StoreError: the URL is not one nnlat supports.
            StoreUnavailableError: the database cannot be reached, opened or migrated.
        """
        engine = connect(url)
        if migrate:
            try:
                migrations.upgrade(engine)
            except DBAPIError as exc:
                engine.dispose()
                raise StoreUnavailableError(
                    f"cannot migrate the nnlat database at {mask(engine.url)}: {_reason(exc)}; "
                    "check that the user may create tables"
                ) from exc
        return cls(engine)

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for migrations and diagnostics)."""
        return self._engine

    @property
    def url(self) -> str:
        """The database URL, password masked."""
        return mask(self._engine.url)

    def close(self) -> None:
        """Close every pooled connection."""
        self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Database({self.url!r})"

    def error(self, exc: DBAPIError, action: str) -> StoreError:
        """The :class:`StoreError` to raise for ``exc``, met while trying to ``action``.

        A lost connection is a :class:`StoreUnavailableError` (retrying later may work);
        a refusal by the database is a plain :class:`StoreError`.
        """
        if isinstance(exc, OperationalError | InterfaceError) or exc.connection_invalidated:
            return StoreUnavailableError(
                f"lost the nnlat database at {self.url} while trying to {action}: "
                f"{_reason(exc)}; nothing was written. Check the server and retry"
            )
        return StoreError(
            f"the database at {self.url} refused to {action}: {_reason(exc)}; nothing was written"
        )

    @contextmanager
    def transaction(self, action: str) -> Iterator[Session]:
        """One transaction: committed when the block ends, rolled back if it raises.

        Args:
            action: what the block does, in words (``"list jobs"``), for error messages.

        Raises:
            StoreError: the database refused the work or was lost (see :meth:`error`).
            IntegrityError: a unique key was taken; :meth:`write` retries these.
        """
        try:
            with self._sessions.begin() as session:
                yield session
        except IntegrityError:
            raise  # write() retries these: a concurrent writer may have taken the key
        except DBAPIError as exc:
            raise self.error(exc, action) from exc

    def write(self, action: str, work: Callable[[Session], T]) -> T:
        """Run ``work`` in one transaction, once more if it lost a unique-key race.

        Args:
            action: what ``work`` does, in words, for error messages.
            work: reads and writes through the session it is given; must be safe to run
                twice (it re-reads what it needs).

        Returns:
            What ``work`` returned.

        Raises:
            StoreError: the database refused the write, or the key was taken twice.
        """
        for attempt in range(2):
            try:
                with self.transaction(action) as session:
                    return work(session)
            except IntegrityError as exc:
                # The first failure is usually a concurrent insert of the same key between
                # our read and our write: re-reading now finds it. A second one is real.
                if attempt:
                    raise self.error(exc, action) from exc
        raise AssertionError("unreachable")
