"""`python -m graders`: see graders/frontends/cli.py."""

import sys

from graders.frontends.cli import main

sys.exit(main())
