"""The suite itself must not reach the internet: an outbound connection fails the test."""

import socket

import pytest
from pytest_socket import SocketConnectBlockedError


def test_outbound_connection_is_blocked_in_tests() -> None:
    with (
        pytest.raises(SocketConnectBlockedError),
        socket.create_connection(("93.184.215.14", 80), 1),
    ):
        pass
