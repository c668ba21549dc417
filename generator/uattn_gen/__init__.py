"""uattn_gen: the offline code generator of uattn.

Reads YAML instance matrices (docs/yaml-schema.md), applies per-arch validity
rules and writes thin instance files, the lookup-table rows, a CMake list and
a manifest. Entry point: `python3 -m uattn_gen` (cli.py).
"""

__version__ = "1.0.0"
