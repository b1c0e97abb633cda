"""``python3 -m wirebench_device decode|reencode HEX`` / ``encode JSON``:
the same command line as ``python3 -m wirebench_device.pson``."""

import sys

from wirebench_device.pson import main

sys.exit(main())
