"""The process's entry point: the ``pipeline`` console script and ``python -m pipeline``.

It loads the command line (:func:`pipeline.cli.run`), and a Ctrl-C while that loads ends the process
as one during a command does (``pipeline: interrupted``, 130), not with a traceback of the import.
"""

import sys


def main() -> None:
    """Load the command line and run it (:func:`pipeline.cli.run` exits)."""
    try:
        from pipeline.cli import run  # the front door: every command starts here
    except KeyboardInterrupt:
        print("pipeline: interrupted", file=sys.stderr)
        sys.exit(130)
    run()


if __name__ == "__main__":
    main()
