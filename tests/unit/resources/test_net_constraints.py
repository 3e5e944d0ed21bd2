"""The cloud-free custom constraints (ip_addr, net_cidr, mac_addr, DNS names, iso_8601)."""

from __future__ import annotations

import pytest

from thermik.resources import net_constraints as nc


@pytest.mark.parametrize("value", ["10.0.0.1", "::1", "fe80::1", "198.51.100.255"])
def test_ip_addresses_pass(value: str) -> None:
    assert nc.ip_addr(value) is None


@pytest.mark.parametrize("value", ["10.0.0", "10.0.0.256", "10.0.0.1/24", "010.0.0.1", "", 7])
def test_non_addresses_fail(value: object) -> None:
    assert nc.ip_addr(value) == "Invalid IP address"


@pytest.mark.parametrize("value", ["10.0.0.0/24", "10.0.0.1/24", "2001:db8::/64", "0.0.0.0/0"])
def test_cidrs_pass(value: str) -> None:
    assert nc.net_cidr(value) is None


@pytest.mark.parametrize("value", ["10.0.0.0", "10.0.0/24", "10.0.0.0/33", "x/24", "10.0.0.0/024"])
def test_non_cidrs_fail(value: str) -> None:
    assert nc.net_cidr(value) is not None


def test_ip_or_cidr_takes_either() -> None:
    assert nc.ip_or_cidr("10.0.0.1") is None
    assert nc.ip_or_cidr("10.0.0.0/8") is None
    assert nc.ip_or_cidr("10.0.0") == "10.0.0 is not a valid IP or CIDR"


@pytest.mark.parametrize("value", ["fa:16:3e:00:00:01", "FA-16-3E-00-00-01", "fa16.3e00.0001"])
def test_macs_pass(value: str) -> None:
    assert nc.mac_addr(value) is None


@pytest.mark.parametrize("value", ["fa:16:3e:00:00", "fa:16:3e:00:00:0g", "fa:16-3e:00:00:01"])
def test_non_macs_fail(value: str) -> None:
    assert nc.mac_addr(value) == "Invalid MAC address."


def test_dns_names() -> None:
    assert nc.dns_name("web-1.example.org") is None
    assert nc.dns_name("web-1.example.org.") is None
    assert "must not start or end with a hyphen" in str(nc.dns_name("-web"))
    assert "empty component" in str(nc.dns_name("a..b"))
    assert "must be 1-63 characters" in str(nc.dns_name("Web"))
    assert "must not be all numeric" in str(nc.dns_name("host.123."))
    assert "FQDN limit" in str(nc.dns_name("a." * 130))


def test_relative_names_and_domains() -> None:
    assert nc.rel_dns_name("web") is None
    assert nc.rel_dns_name("") is None
    assert "should be a relative domain name" in str(nc.rel_dns_name("web.example.org."))
    assert nc.dns_domain("example.org.") is None
    assert nc.dns_domain("example.org") == "'example.org' must end with '.'."


def test_iso_8601() -> None:
    assert nc.iso_8601("2026-12-02T01:30:00Z") is None
    assert nc.iso_8601("2026-12-02") is None
    assert nc.iso_8601("yesterday") is not None


def test_cloud_validators_win_over_the_pure_ones() -> None:
    def mine(value: object) -> str | None:
        return "no"

    merged = nc.with_pure({"ip_addr": mine, "glance.image": mine})
    assert merged["ip_addr"] is mine
    assert merged["net_cidr"] is nc.net_cidr
    assert set(nc.PURE_CONSTRAINTS) <= set(merged)
