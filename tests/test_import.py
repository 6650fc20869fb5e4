import subprocess
import sys

HEAVY = ("onnxruntime", "tokenizers", "trafilatura", "pypdfium2", "httpx")


def test_importing_the_package_loads_no_model_and_opens_no_connection() -> None:
    code = (
        "import socket, sys\n"
        "def refuse(*a, **k): raise SystemExit('connection attempted at import')\n"
        "socket.socket.connect = refuse\n"
        "import citation_verifier, citation_verifier.verifier, citation_verifier.cli\n"
        f"loaded = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(','.join(loaded))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() in ("", "httpx")  # httpx is a client library: no model, no socket
