import ipaddress

import pytest

from citation_verifier.fetch.base import FetchFailed
from citation_verifier.fetch.ssrf import is_forbidden_address, resolve_allowed
from citation_verifier.models import Reason


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "0.0.0.0",
        "100.64.0.1",
        "224.0.0.1",
        "255.255.255.255",
        "::1",
        "fe80::1",
        "fc00::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "2002:7f00:1::",
        "64:ff9b::a00:1",
        "192.0.0.8",
        "198.18.0.1",
        "2001:db8::1",
        "2001::1",
        "3fff::1",
        "100::1",
    ],
)
def test_non_public_addresses_are_forbidden(address: str) -> None:
    assert is_forbidden_address(ipaddress.ip_address(address))


# Each form an IPv4 address can take inside IPv6, wrapping 127.0.0.1: a NAT64-style translator
# in front of the service would carry any of them to the host's own loopback.
@pytest.mark.parametrize(
    "address",
    [
        "::127.0.0.1",  # IPv4-compatible (deprecated)
        "::ffff:0:7f00:1",  # SIIT IPv4-translated
        "64:ff9b:1::7f00:1",  # local-use NAT64 prefix
        "64:ff9b::7f00:1",  # NAT64 well-known prefix
        "::ffff:7f00:1",  # IPv4-mapped
        "2002:7f00:1::1",  # 6to4
    ],
)
def test_loopback_wrapped_in_ipv6_is_forbidden(address: str) -> None:
    assert is_forbidden_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["::808:808", "::ffff:0:808:808", "64:ff9b:1::808:808"])
def test_ipv4_wrappers_that_never_route_are_forbidden_even_around_public_ipv4(
    address: str,
) -> None:
    assert is_forbidden_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["64:ff9b::808:808", "::ffff:8.8.8.8", "2002:808:808::1"])
def test_translated_public_ipv4_is_allowed(address: str) -> None:
    assert not is_forbidden_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700::6810:85e5"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert not is_forbidden_address(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "localhost",
        "2130706433",
        "0x7f.0.0.1",
        "127.1",
        "::1",
        "::127.0.0.1",
        "::ffff:0:7f00:1",
        "64:ff9b:1::7f00:1",
        "192.0.0.8",
    ],
)
async def test_loopback_in_any_notation_is_refused(host: str) -> None:
    with pytest.raises(FetchFailed) as raised:
        await resolve_allowed(host, 80, allow_private=False)
    assert raised.value.reason == Reason.FORBIDDEN_ADDRESS
    assert "ALLOW_PRIVATE_URLS" in raised.value.detail


async def test_loopback_is_allowed_when_configured() -> None:
    assert await resolve_allowed("127.0.0.1", 80, allow_private=True) == "127.0.0.1"


async def test_unresolvable_host_is_a_dns_error() -> None:
    with pytest.raises(FetchFailed) as raised:
        await resolve_allowed("no-such-host.invalid", 80, allow_private=False)
    assert raised.value.reason == Reason.DNS_ERROR
