"""`python -m graders`: see graders/cli.py."""

import sys

from graders.cli import main

sys.exit(main())
