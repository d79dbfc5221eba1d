"""``python -m exactalign``: the ``exactalign`` command."""

import sys

from .cli import entry

sys.exit(entry())
