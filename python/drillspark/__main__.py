"""`python -m drillspark` is the `drillspark` command."""

import sys

from drillspark.cli.main import main

sys.exit(main())
