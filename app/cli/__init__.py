"""Command-line entry points of `python -m app`; one module per command."""
