"""`python -m app [COMMAND]`: serve (the default), or an operator/developer command."""

from __future__ import annotations

import argparse
import importlib
import sys

# Each command lives in its own module under app/cli exposing `add_arguments` and `run`;
# importing lazily keeps `python -m app replay` free of the web stack.
COMMANDS: dict[str, str] = {
    "serve": "app.cli.serve",
    "replay": "app.cli.replay",
    "simulate": "app.cli.simulate",
    "ledger": "app.cli.ledger",
    "verify": "app.cli.verify",
    "export": "app.cli.export",
    "tables": "app.cli.tables",
    "tournaments": "app.cli.tournaments",
    "admin": "app.cli.admin",
    "protocol-doc": "app.cli.protocol_doc",
    "settings-doc": "app.cli.settings_doc",
}


def main(argv: list[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    modules = {}
    for name, module_name in COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        modules[name] = module
        module.add_arguments(sub.add_parser(name, help=module.__doc__))
    if not args_in or (args_in[0].startswith("-") and args_in[0] not in ("-h", "--help")):
        args_in = ["serve", *args_in]
    args = parser.parse_args(args_in)
    code: int = modules[args.command].run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
