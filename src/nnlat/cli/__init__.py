"""The ``nnlat`` command line: thin typer commands over the library."""
