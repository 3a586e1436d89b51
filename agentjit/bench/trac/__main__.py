"""``python -m agentjit.bench.trac [PORT]``: serve the Trac project until interrupted."""

import sys

from .site import serve_forever

serve_forever(port=int(sys.argv[1]) if len(sys.argv) > 1 else 8000)
