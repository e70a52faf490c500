"""The version of nnlat, in a module of its own so that any package can read it cheaply."""

__version__ = "0.1.0"
