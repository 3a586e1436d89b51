"""``python -m agentjit.bench.django_admin [PORT]``: serve the library's admin until interrupted."""

import sys

from .site import serve_forever

serve_forever(port=int(sys.argv[1]) if len(sys.argv) > 1 else 8000)
