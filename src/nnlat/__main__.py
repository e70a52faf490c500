"""``python -m nnlat``: the same as the ``nnlat`` command."""

from nnlat.cli.main import main

if __name__ == "__main__":
    main()
