"""``python -m agentjit.bench.roundup [PORT]``: serve the tracker with generated data until interrupted."""

import sys

from .server import serve_forever

serve_forever(port=int(sys.argv[1]) if len(sys.argv) > 1 else 8080)
