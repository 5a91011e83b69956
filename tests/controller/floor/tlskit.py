"""A throw-away certificate authority for the TLS tests (``mqtts://``), made by openssl."""

from __future__ import annotations

import subprocess
from pathlib import Path


def throwaway_ca(directory: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for 127.0.0.1 signed by it, made by openssl: (ca, cert, key)."""
    ca_key, ca, key, request, cert = (directory / name for name in ("ca.key", "ca.pem", "server.key",
                                                                    "server.csr", "server.pem"))
    extensions = directory / "san.cnf"
    extensions.write_text("subjectAltName = IP:127.0.0.1\n")

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Croupier test CA",
            "-keyout", str(ca_key), "-out", str(ca))
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", str(key),
            "-out", str(request))
    openssl("x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
            "-days", "2", "-extfile", str(extensions), "-out", str(cert))
    return ca, cert, key
