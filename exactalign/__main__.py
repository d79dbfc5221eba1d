"""``python -m exactalign``: the ``exactalign`` command."""

import sys

from .cli import main

sys.exit(main())
