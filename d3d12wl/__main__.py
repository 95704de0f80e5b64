import sys

from d3d12wl.cli import main

sys.exit(main())
