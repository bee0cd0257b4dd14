"""The URLs the hall prints: its LAN addresses when it listens on every interface.

``http://0.0.0.0:8000/`` is what the server listens on, not an address anyone can type; with
``--host 0.0.0.0`` (or ``::``) the hall prints one URL per IPv4 address of this machine that
another device on the network can reach (loopback and link-local left out).
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from pathlib import Path

WILDCARDS = {"0.0.0.0", "::", ""}
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
INSECURE_NOTE = """\
Nota: por HTTP sin cifrar en una red local, la página no es un contexto seguro. Los dispositivos
no tienen service worker (ni copia sin conexión), ni memoria compartida (■ Detener reinicia Python
en vez de interrumpirlo), ni brotli. Para servir HTTPS: --cert CERT.pem --key KEY.pem (un
certificado en el que confíen los dispositivos, p. ej. hecho con mkcert para la dirección de este
equipo), o ponga dist/ en un servidor estático con HTTPS (docs/despliegue.md)."""


def lan_addresses() -> list[str]:
    """This machine's reachable IPv4 addresses, the one of the default route first."""
    found: list[str] = []
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 9))  # UDP connect sends nothing: it only picks a route
        found.append(probe.getsockname()[0])
    except OSError:
        pass
    finally:
        probe.close()
    for name in {socket.gethostname(), socket.getfqdn()}:
        try:
            infos = socket.getaddrinfo(name, None, socket.AF_INET)
        except OSError:
            continue
        found.extend(str(info[4][0]) for info in infos)
    out: list[str] = []
    for addr in found:
        ip = ipaddress.ip_address(addr)
        if not (ip.is_loopback or ip.is_link_local or ip.is_unspecified) and addr not in out:
            out.append(addr)
    return out


def audience_urls(host: str, port: int, scheme: str = "http", addresses=lan_addresses) -> list[str]:
    """The URLs to give the audience: the host itself, or the LAN addresses for a wildcard."""
    if host in WILDCARDS:
        hosts = addresses() or ["127.0.0.1"]
    else:
        hosts = [host]
    return [f"{scheme}://{_bracket(h)}:{port}/" for h in hosts]


def presenter_url(host: str, port: int, scheme: str, audience: list[str]) -> str:
    """Where the presenter opens the deck: on this machine, over loopback.

    ``http://127.0.0.1`` is a secure context, the LAN address over plain HTTP is not (no offline
    copy, Stop restarts Python); a certificate is made for the name the hall gives, so over
    HTTPS, and when the hall listens on one address only, the audience's URL it is.
    """
    if scheme == "http" and host in WILDCARDS | LOOPBACK:
        loopback = "[::1]" if host in {"::", "::1"} else "127.0.0.1"
        return f"http://{loopback}:{port}/"
    return audience[0]


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def ssl_context(cert: Path | None, key: Path | None) -> ssl.SSLContext | None:
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise SystemExit("--cert and --key go together")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context
