"""``bash scripts/rehearse.sh``: rehearse the HTTPS set-up of docs/deploy.md (case 2) on this
machine, before a server exists (issue 46, item 17).

One command builds the deck for a static origin and serves both origins through Caddy, with
Caddy's own local CA (``tls internal``, offline) instead of Let's Encrypt:

- the deck on ``https://localhost:DECK_PORT/`` (``deploy/deck.caddy``: the brotli and gzip
  copies, the isolation headers), built with ``--hall https://localhost:HALL_PORT``;
- the hall on ``https://localhost:HALL_PORT/`` (``deploy/hall.caddy``), one process alone
  (``--live``) on a free loopback port, with ``--allow-origin`` the deck's origin and
  ``--trust-proxy 127.0.0.1``, as on the VM. A different port is a different origin: CORS and
  the page's CSP apply as they would across two hosts.

Chromium (Debian's and Chrome on Linux) is made to trust Caddy's CA through the NSS database
``$HOME/.pki/nssdb`` (``certutil``), never by ignoring certificate errors. Everything listens on
127.0.0.1 only; Caddy's files, its CA and the hall's file stay in one folder (default
``.hall/ensayo/``), so the CA is trusted once and kept for the next rehearsal. It prints the two
URLs and the presenter's, and runs until Ctrl+C or SIGTERM, which stops Caddy and the hall.

The helpers (:func:`caddy_globals`, :func:`wait_tls`, :func:`trust_ca`) are the recipe the
browser test of this set-up runs too (tests/browser/test_proxy.py). Needs ``caddy`` and
``certutil`` (Debian: ``apt-get install caddy libnss3-tools``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

from dpdeck.resources import checkout

CA_NAME = "dpdeck-ensayo-caddy-ca"  # the CA's nickname in the NSS database


class Missing(RuntimeError):
    """A tool the rehearsal needs is not installed; the message says which package has it."""


def tool(name: str, package: str) -> str:
    """The path of the program ``name``, or :class:`Missing` naming Debian's ``package``."""
    path = shutil.which(name)
    if path is None:
        raise Missing(f"falta {name}: instálelo (Debian: sudo apt-get install {package})")
    return path


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def caddy_globals(storage: Path, http_port: int, https_port: int) -> str:
    """Caddy's global block for a rehearsal on loopback: its own CA (``local_certs``, never
    installed into the system), its files in ``storage``, no admin endpoint, no redirects."""
    return (
        "{\n\tlocal_certs\n\tskip_install_trust\n\tadmin off\n"
        f"\tstorage file_system {storage}\n\thttp_port {http_port}\n\thttps_port {https_port}\n"
        "\tauto_https disable_redirects\n}\n"
    )


def ca_path(storage: Path) -> Path:
    """Where Caddy keeps its local CA's root certificate under ``storage``."""
    return storage / "pki" / "authorities" / "local" / "root.crt"


def failed(what: str, log: Path) -> RuntimeError:
    """The error for a process of the rehearsal that failed, ``what`` saying how ("Caddy se
    detuvo"), followed by its whole ``log`` to say why."""
    return RuntimeError(f"{what}:\n" + log.read_text(errors="replace"))


def wait_ca(caddy: subprocess.Popen, storage: Path, log: Path, timeout: float = 30.0) -> Path:
    """The root certificate once Caddy made it (RuntimeError with Caddy's log if it stopped)."""
    ca, deadline = ca_path(storage), time.monotonic() + timeout
    while not ca.exists():
        if caddy.poll() is not None or time.monotonic() > deadline:
            raise failed("Caddy no arrancó", log)
        time.sleep(0.2)
    return ca


def wait_tls(
    port: int, ca: Path, host: str, caddy: subprocess.Popen, log: Path, timeout: float = 30.0
) -> None:
    """Wait until ``127.0.0.1:port`` answers TLS for ``host`` with a certificate of ``ca``
    (RuntimeError with Caddy's ``log`` if it stopped: a port another program took, say)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            context = ssl.create_default_context(cafile=str(ca))
            with socket.create_connection(("127.0.0.1", port), timeout=2) as raw:
                with context.wrap_socket(raw, server_hostname=host):
                    return
        except (OSError, ssl.SSLError):
            if caddy.poll() is not None:
                raise failed("Caddy se detuvo", log) from None
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def trust_ca(ca: Path, home: Path, certutil: str | None = None) -> Path:
    """Make Chromium of ``home`` trust ``ca``: its NSS database ``home/.pki/nssdb`` (made when
    missing, with no password) gets the CA as ``CA_NAME`` (replacing an earlier one). Returns
    the database's folder."""
    certutil = certutil or tool("certutil", "libnss3-tools")
    nssdb = home / ".pki" / "nssdb"
    db = f"sql:{nssdb}"
    if not (nssdb / "cert9.db").exists():
        nssdb.mkdir(parents=True, exist_ok=True)
        subprocess.run([certutil, "-N", "-d", db, "--empty-password"], check=True, capture_output=True)
    subprocess.run([certutil, "-D", "-d", db, "-n", CA_NAME], capture_output=True)  # none yet: fine
    subprocess.run(
        [certutil, "-A", "-d", db, "-n", CA_NAME, "-t", "C,,", "-i", str(ca)], check=True, capture_output=True
    )
    return nssdb


def stop(proc: subprocess.Popen | None) -> None:
    """SIGTERM to a process this rehearsal started, SIGKILL if it lingers past 10 s."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _presenter(log: Path, hall: subprocess.Popen, timeout: float = 30.0) -> str:
    """The presenter URL the hall printed into ``log``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"(\S+#presenter=\S+)", log.read_text(errors="replace"))
        if found:
            return found.group(1)
        if hall.poll() is not None:
            break
        time.sleep(0.1)
    raise failed("la sala no arrancó", log)


def _fresh_files(
    root: Path, folder: Path, deck: str, hall_origin: str, deck_port: int
) -> tuple[Path, Path, Path]:
    """The rehearsal's hall file (deleted: each rehearsal starts clean), its Caddyfile (written)
    and Caddy's storage folder."""
    hall_db = folder / "hall.sqlite3"
    for old in (hall_db, folder / "hall.sqlite3-wal", folder / "hall.sqlite3-shm"):
        old.unlink(missing_ok=True)
    storage = folder / "caddy"
    config = folder / "Caddyfile"
    config.write_text(
        caddy_globals(storage, free_port(), deck_port)
        + f"{deck} {{\n\tbind 127.0.0.1\n\ttls internal\n\timport {root / 'deploy' / 'deck.caddy'}\n}}\n"
        + f"{hall_origin} {{\n\tbind 127.0.0.1\n\ttls internal\n\timport {root / 'deploy' / 'hall.caddy'}\n}}\n",
        encoding="utf-8",
    )
    return hall_db, config, storage


def rehearse(
    root: Path,
    folder: Path,
    deck_port: int,
    hall_port: int,
    deck_file: Path | None,
    build_it: bool,
    browser_home: Path,
) -> int:
    """Build, start Caddy and the hall, trust the CA in ``browser_home``'s NSS database, print
    the URLs, and wait for SIGINT or SIGTERM (0), or for Caddy or the hall to stop (1)."""
    caddy_bin = tool("caddy", "caddy")
    certutil = tool("certutil", "libnss3-tools")
    folder = folder.resolve()
    if re.search(r"\s", str(folder)):
        raise SystemExit(f"la carpeta del ensayo no puede tener espacios (Caddy la lee así): {folder}")
    folder.mkdir(parents=True, exist_ok=True)
    deck_port = deck_port or free_port()
    hall_port = hall_port or free_port()
    deck, hall_origin = f"https://localhost:{deck_port}", f"https://localhost:{hall_port}"
    dist, built_for = folder / "dist", folder / "dist-hall.txt"  # the hall origin dist/ was built for
    if build_it or not built_for.exists() or built_for.read_text() != hall_origin:
        from dpdeck.build.site import Project, build

        print(f"ensayo: construyendo la presentación para la sala {hall_origin} …", flush=True)
        build(Project(root), deck_file=deck_file, dist=dist, hall=hall_origin)
        built_for.write_text(hall_origin)

    upstream = free_port()
    hall_db, config, storage = _fresh_files(root, folder, deck, hall_origin, deck_port)
    hall_log, caddy_log = folder / "hall.log", folder / "caddy.log"
    env = {**os.environ, "DECK_DIR": str(dist), "HALL_UPSTREAMS": f"127.0.0.1:{upstream}"}
    hall = caddy = None
    stopping = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopping.append(True))
    try:
        with hall_log.open("w") as out:
            hall = subprocess.Popen(
                [sys.executable, "-m", "dpdeck.hall", "--live", str(dist / "live.json"),
                 "--host", "127.0.0.1", "--port", str(upstream), "--quiet",
                 "--hall-db", str(hall_db), "--hall-token-file", str(folder / "hall.token"),
                 "--allow-origin", deck, "--audience-url", deck + "/", "--trust-proxy", "127.0.0.1"],
                cwd=root, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        with caddy_log.open("w") as out:
            caddy = subprocess.Popen(
                [caddy_bin, "run", "--config", str(config), "--adapter", "caddyfile"],
                env={**env, "HOME": str(folder)},  # Caddy's own files, never the user's
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        presenter = _presenter(hall_log, hall)
        ca = wait_ca(caddy, storage, caddy_log)
        for port in (deck_port, hall_port):
            wait_tls(port, ca, "localhost", caddy, caddy_log)
        nssdb = trust_ca(ca, browser_home, certutil)
        print(
            "\n".join(
                [
                    "Ensayo del despliegue en este equipo (Ctrl+C lo detiene):",
                    f"  la presentación (un servidor estático, HTTPS): {deck}/",
                    f"  la sala (detrás de Caddy, otro origen):        {hall_origin}/",
                    f"  presentador (guárdelo para usted):             {presenter}",
                    f"  la CA de Caddy: {ca}",
                    f"  Chromium confía en ella (base NSS {nssdb}); ciérrelo y ábralo de nuevo si ya estaba abierto",
                    f"  registros: {caddy_log} y {hall_log}",
                ]
            ),
            flush=True,
        )
        while not stopping:
            for name, proc in (("Caddy", caddy), ("la sala", hall)):
                if proc.poll() is not None:
                    time.sleep(0.5)  # Ctrl+C in a terminal reaches the children too: was it that?
                    if stopping:
                        break
                    print(f"ensayo: {name} se detuvo (código {proc.returncode}); vea {folder}", flush=True)
                    return 1
            time.sleep(0.2)
        print("ensayo: detenido", flush=True)
        return 0
    finally:
        stop(caddy)
        stop(hall)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dpdeck.serve.rehearse", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--deck-port", type=int, default=8443, help="the deck's HTTPS port (0: a free one)")
    parser.add_argument("--hall-port", type=int, default=8444, help="the hall's HTTPS port (0: a free one)")
    parser.add_argument("--deck", type=Path, help="the deck file (default: deck/deck.yaml)")
    parser.add_argument("--dir", type=Path, help="the rehearsal's folder (default: .hall/ensayo)")
    parser.add_argument(
        "--browser-home",
        type=Path,
        default=Path.home(),
        help="whose .pki/nssdb trusts the CA (default: $HOME)",
    )
    parser.add_argument(
        "--no-build",
        action="store_true",
        help="serve the folder's dist/ as it is (if built for the same hall port)",
    )
    args = parser.parse_args(argv)
    root = checkout()
    if root is None:
        raise SystemExit("el ensayo se hace desde una copia del repositorio (bash scripts/rehearse.sh)")
    try:
        folder = args.dir or root / ".hall" / "ensayo"
        return rehearse(
            root, folder, args.deck_port, args.hall_port, args.deck, not args.no_build, args.browser_home
        )
    except Missing as exc:
        raise SystemExit(f"ensayo: {exc}") from None


if __name__ == "__main__":
    raise SystemExit(main())
