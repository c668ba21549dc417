"""`python3 -m uattn_gen ...` runs the command line (cli.py)."""
import sys

from .cli import main

sys.exit(main())
