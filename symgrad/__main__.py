"""``python -m symgrad``: the command line of :mod:`symgrad.cli`."""

import sys

from symgrad.cli import main

if __name__ == "__main__":
    sys.exit(main())
