"""``python -m sitesim`` is the ``sitesim`` command."""

import sys

from sitesim.cli import main

sys.exit(main())
