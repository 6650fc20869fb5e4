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
    ],
)
def test_non_public_addresses_are_forbidden(address: str) -> None:
    assert is_forbidden_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700::6810:85e5"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert not is_forbidden_address(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "localhost", "2130706433", "0x7f.0.0.1", "127.1", "::1"]
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
