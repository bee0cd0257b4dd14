"""Which addresses count as one client for the hall's per-address bounds.

An IPv4 address is its own group. An IPv6 address is grouped by its /64 prefix: one device or
one network gets a whole /64, so counting each IPv6 address apart would give one client 2⁶⁴
addresses. An IPv4-mapped IPv6 address (``::ffff:192.0.2.7``) is its IPv4 address.
"""

from __future__ import annotations

import ipaddress


def group(address: str | None) -> str:
    """The key ``address`` is bounded under: the IPv4 address, or ``<prefix>/64`` for IPv6;
    ``"?"`` for no address or one that is not an IP address (a Unix socket)."""
    if not address:
        return "?"
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # a zone index (fe80::1%eth0) is dropped
    except ValueError:
        return "?"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)
